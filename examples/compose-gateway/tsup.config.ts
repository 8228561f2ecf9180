import { defineConfig } from "tsup";

// No .d.ts: nothing imports this example, and emitting them typechecks every @relax/* source it reaches.
export default defineConfig({
  entry: { "compose-gateway": "src/compose-gateway.ts", main: "src/main.ts" },
  format: ["esm"],
  dts: false,
  sourcemap: true,
  clean: true,
  target: "node20",
  platform: "node",
});
