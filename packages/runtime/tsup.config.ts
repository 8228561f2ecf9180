import { defineConfig } from "tsup";

export default defineConfig({
  // shard-main is the entry of a gateway shard process (forked by the shard pool from dist/).
  entry: {
    index: "src/index.ts",
    "shard-main": "src/shard-main.ts",
  },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  platform: "node",
});
