import { mergeConfig } from "vitest/config";
import { relaxVitestConfig } from "../../vitest.shared.ts";

export default mergeConfig(relaxVitestConfig(), { test: { setupFiles: ["test/setup.ts"] } });
