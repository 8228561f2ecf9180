import { mkdir, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors/config-error";

/** `<run-dir>/state.json`: where a run stands after its last finished step. */
export const runStateSchema = z.object({
  /** The configuration hash of the run that wrote the file (`hashRolloutConfig` of `@relax/runtime`). */
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
