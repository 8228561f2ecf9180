import type { StandinStarter } from "@relax/runtime";
import { startStandin } from "@relax/standin";

/**
 * The SGLang-compatible stand-in engine (a scripted policy, not a model) that the `relax` CLI injects into
 * the runtime: a run without `--sglang-url` (`relax demo`, tests, trying the path without a GPU) starts it
 * on a loopback port with `--engine-policy`. The libraries never depend on it.
 */
export const standinStarter: StandinStarter = { start: startStandin };
