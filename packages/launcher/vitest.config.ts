import { mergeConfig } from "vitest/config";
import { relaxVitestConfig } from "../../vitest.shared.ts";

// Real process trees: run the files one at a time, with room for a loaded CI machine (waits poll, so a
// quiet machine never waits for the limits).
export default mergeConfig(relaxVitestConfig({ testTimeout: 90_000, fileParallelism: false }), {
  test: { setupFiles: ["test/setup.ts"] },
});
