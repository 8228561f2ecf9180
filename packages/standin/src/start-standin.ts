import type { StandinPolicy } from "./policies/standin-policy";
import { createStandinEngine } from "./standin-engine";
import type { StandinEngine, StandinEngineOptions } from "./standin-engine-types";

/** A started stand-in engine: the engine, the URL it listens on, and how to stop it. */
export interface StartedStandin {
  engine: StandinEngine;
  /** `http://127.0.0.1:<port>`: the base URL an SGLang client is given. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the SGLang-compatible stand-in engine (a scripted policy, not a model) on a free loopback port.
 * The `relax` CLI and tests inject it into `@relax/runtime` (`RuntimeIo.standin`) for runs without
 * `--sglang-url`; no library depends on the stand-in. `policy` comes from a module the caller loaded, so
 * it is checked here.
 *
 * @throws TypeError when `policy` is not a function.
 */
export async function startStandin(
  options: Omit<StandinEngineOptions, "policy"> & { policy: unknown },
): Promise<StartedStandin> {
  const { policy } = options;
  if (typeof policy !== "function") {
    throw new TypeError(`the stand-in policy must be a function (StandinPolicy), got ${typeof policy}`);
  }
  const engine = createStandinEngine({ ...options, policy: policy as StandinPolicy });
  const url = await engine.listen(0, "127.0.0.1");
  return { engine, url, close: () => engine.close() };
}
