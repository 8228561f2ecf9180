import { mergeConfig } from "vitest/config";
import { relaxVitestConfig } from "../../vitest.shared.ts";

// The test files share one module graph per worker (isolate: false), so the 11 MB Qwen3 tokenizer is
// parsed once per worker rather than once per file; the tests keep no global state between files.
export default mergeConfig(relaxVitestConfig(), { test: { isolate: false } });
