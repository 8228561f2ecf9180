import { relaxVitestConfig } from "../../vitest.shared.ts";

// Agent tests start real child processes (tsx + the SDK); on a loaded 2-core machine one start can take
// several seconds, so the per-test budget is generous. No assertion depends on timing.
export default relaxVitestConfig({ testTimeout: 120_000 });
