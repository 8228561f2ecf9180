import { relaxVitestConfig } from "../../vitest.shared.ts";

// Controller, shard and turn-runner tests start servers and processes; run the files one at a time.
export default relaxVitestConfig({ testTimeout: 120_000, fileParallelism: false });
