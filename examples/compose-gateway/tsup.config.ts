import { defineConfig } from "tsup";

export default defineConfig({
  entry: { "compose-gateway": "src/compose-gateway.ts", main: "src/main.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  platform: "node",
});
