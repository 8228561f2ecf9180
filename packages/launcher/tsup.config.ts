import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", "internal/index": "src/internal/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  platform: "node",
  // The relax-reaper supervisor (child subreaper) is C: compile it next to the bundle.
  onSuccess: "node scripts/build-reaper.mjs",
});
