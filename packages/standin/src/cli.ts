#!/usr/bin/env node
/**
 * `relax-sglang-standin`: starts the SGLang-compatible stand-in engine (not a model) for manual use.
 * See `relax-sglang-standin --help`.
 */
import { runStandinCli } from "./run-standin-cli";

runStandinCli(process.argv.slice(2)).then(
  (engine) => {
    if (!engine) return;
    const stop = () => {
      engine.close().then(() => process.exit(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  },
  (error: unknown) => {
    console.error(`relax-sglang-standin: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
