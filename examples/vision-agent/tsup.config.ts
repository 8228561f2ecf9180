import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", agent: "src/agent.ts", policy: "src/policy.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  platform: "node",
});
