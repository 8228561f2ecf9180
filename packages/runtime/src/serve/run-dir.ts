import { createHash } from "node:crypto";
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../config/load-config";
import type { RolloutConfig } from "../config/rollout-config";

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

/** `<run-dir>/state.json`: where a run stands after its last finished step. */
export const runStateSchema = z.object({
  /** {@link hashRolloutConfig} of the run that wrote the file. */
  config_hash: z.string(),
  /** The rollout id the next train step gets. */
  next_rollout_id: z.number().int().min(0),
  /** Train prompts taken so far (the next prompt is `dataset_cursor % dataset size`). */
  dataset_cursor: z.number().int().min(0),
  /** The last version the trainer named (`relax serve`), or null. */
  weight_version: z.string().nullable().default(null),
  /** Eval bookkeeping: the rollout id of the last eval run, or null. */
  eval: z.object({ last_rollout_id: z.number().int().min(0).nullable().default(null) }).default({
    last_rollout_id: null,
  }),
});
/** Contents of `<run-dir>/state.json`. */
export type RunState = z.infer<typeof runStateSchema>;

/** The file name of the run state inside `--run-dir`. */
export const RUN_STATE_FILE = "state.json";

/**
 * Reads `<dir>/state.json`; `undefined` when the directory or the file does not exist yet.
 * @throws ConfigError when the file is not valid JSON or not a run state (naming the field).
 */
export async function readRunState(dir: string): Promise<RunState | undefined> {
  const path = join(dir, RUN_STATE_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError({ message: `${path}: not JSON; remove it to start the run over` });
  }
  const parsed = runStateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError({
      message: `${path}: ${issue.path.join(".") || "(root)"}: ${issue.message}; remove it to start the run over`,
    });
  }
  return parsed.data;
}

/**
 * Writes `<dir>/state.json` atomically: a temporary file in the same directory, fsync, then rename over
 * the old one, so a crash leaves either the previous or the new state, never a torn file. Creates `dir`.
 */
export async function writeRunState(dir: string, state: RunState): Promise<void> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, RUN_STATE_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(`${JSON.stringify(state, null, 2)}\n`, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

/**
 * Opens a run directory at start: the saved state when `state.json` exists, else `undefined` (a new
 * run).
 * @throws ConfigError when the saved `config_hash` differs from `configHash` and `force` is false.
 */
export async function openRunDir(options: {
  dir: string;
  configHash: string;
  force: boolean;
}): Promise<RunState | undefined> {
  const state = await readRunState(options.dir);
  if (state === undefined) return undefined;
  if (state.config_hash !== options.configHash && !options.force) {
    throw new ConfigError({
      message:
        `--run-dir ${options.dir}: the configuration changed since ${RUN_STATE_FILE} was written ` +
        `(${state.config_hash} there, ${options.configHash} now); restore the flags of that run, use another ` +
        "--run-dir, or pass --run-dir-force to continue anyway",
    });
  }
  return state;
}
