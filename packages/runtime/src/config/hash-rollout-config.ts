import { createHash } from "node:crypto";
import type { RolloutConfig } from "./rollout-config";

/**
 * Configuration keys that do not change what a run samples or exports, so they may differ between a run
 * and its restart on the same `--run-dir`: where it listens and logs, where its outputs go, how many
 * steps this invocation runs.
 */
export const RUN_LOCAL_CONFIG_KEYS = [
  "host",
  "port",
  "logLevel",
  "progress",
  "output",
  "saveDebugRolloutData",
  "sessionLogDir",
  "keepSessionDirs",
  "numRollout",
  "runDir",
  "runDirForce",
  "engineWaitInitial",
  "engineWaitMax",
  "engineOutageTimeout",
  "engineFaultHoldTimeout",
  "engineFaultMaxAttempts",
  "engineProgressTimeout",
] as const satisfies ReadonlyArray<keyof RolloutConfig>;

/**
 * `sha256:<hex>` of the normalised configuration: the validated config (defaults applied) without the
 * {@link RUN_LOCAL_CONFIG_KEYS}, serialised as JSON with object keys sorted at every level. Paths are
 * hashed as written. The control token is not part of the config, so it never enters the hash.
 */
export function hashRolloutConfig(config: RolloutConfig): string {
  const kept: Record<string, unknown> = { ...config };
  for (const key of RUN_LOCAL_CONFIG_KEYS) delete kept[key];
  return `sha256:${createHash("sha256").update(stableJson(kept)).digest("hex")}`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
