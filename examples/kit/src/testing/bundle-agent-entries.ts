import { join } from "node:path";
import { build } from "tsup";

/** Options of {@link bundleAgentEntries}. */
export interface BundleAgentEntriesOptions {
  /** The example package's directory. */
  packageDir: string;
  /** Entry name → source file relative to `packageDir`, e.g. `{ agent: "src/agent.ts" }`. */
  entries: Record<string, string>;
  /** Output folder relative to `packageDir` (ignored by git and biome). @default "node_modules/.cache/relax-test-dist" */
  outDir?: string;
}

/**
 * Bundles an example's entry points the way its tsup build does (ESM, node20), with workspace packages
 * taken from their TypeScript sources (`@relax/source`) and inlined, so agent tests run the shipped shape
 * of the program as a plain `node file.js` without a prior build. Third-party packages stay external,
 * except mathjs, which is tree-shaken as in the real build.
 * @returns Entry name → absolute path of the bundled `.js` file.
 */
export async function bundleAgentEntries({
  packageDir,
  entries,
  outDir = "node_modules/.cache/relax-test-dist",
}: BundleAgentEntriesOptions): Promise<Record<string, string>> {
  const out = join(packageDir, outDir);
  await build({
    entry: Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, join(packageDir, file)])),
    outDir: out,
    format: ["esm"],
    target: "node20",
    platform: "node",
    dts: false,
    sourcemap: false,
    clean: true,
    silent: true,
    splitting: true,
    config: false,
    noExternal: [/^@relax-examples\//, "mathjs"],
    esbuildOptions(options) {
      options.conditions = ["@relax/source", "import", "node"];
    },
  });
  return Object.fromEntries(Object.keys(entries).map((name) => [name, join(out, `${name}.js`)]));
}
