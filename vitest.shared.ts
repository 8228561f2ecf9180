import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/**
 * Shared vitest settings: workspace packages resolve to their TypeScript sources through the
 * `@relax/source` export condition, so a package's tests never depend on a stale `dist/` of another.
 */
export function relaxVitestConfig(options: { testTimeout?: number; fileParallelism?: boolean } = {}) {
  const conditions = ["@relax/source", ...defaultServerConditions];
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ["@relax/source"] } },
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 60_000,
      hookTimeout: 60_000,
      pool: "forks",
      fileParallelism: options.fileParallelism ?? true,
    },
  });
}
