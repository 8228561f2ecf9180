import { defineConfig, mergeConfig } from "vitest/config";
import { relaxVitestConfig } from "../../vitest.shared";

// End-to-end tests start real agent processes and servers; run the files one at a time.
export default mergeConfig(
  relaxVitestConfig({ testTimeout: 120_000 }),
  defineConfig({ test: { fileParallelism: false } }),
);
