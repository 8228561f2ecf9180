import { relaxVitestConfig } from "../../vitest.shared.ts";

// End-to-end tests start real agent processes and servers; run the files one at a time.
export default relaxVitestConfig({ testTimeout: 120_000, fileParallelism: false });
