import { relaxVitestConfig } from "../../vitest.shared.ts";

// One test loads the real Qwen3 tokenizer and serves real HTTP; on a loaded 2-core machine that can take
// several seconds, so the budget is generous. No assertion depends on timing.
export default relaxVitestConfig({ testTimeout: 120_000 });
