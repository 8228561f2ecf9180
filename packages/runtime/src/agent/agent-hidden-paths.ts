import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import type { EvalDatasetSpec } from "@relax/rollout";
import { resolveTokenizerPath } from "../config/resolve-tokenizer-path";

/** The parts of the run's configuration that name the gateway's own files. */
export interface RunFilesConfig {
  output?: string | undefined;
  runDir?: string | undefined;
  sessionLogDir?: string | undefined;
  promptData?: string | undefined;
  evalPromptData?: readonly EvalDatasetSpec[] | undefined;
  saveDebugRolloutData?: string | undefined;
  tokenizer?: string | undefined;
}

/**
 * The host paths agents must not see (docs/security.md#run-files): the run dir (journal, state, control
 * token), `--session-log-dir`, the prompt datasets (with their reward labels), the tokenizer folder, and
 * the folders of `--output` and `--save-debug-rollout-data` (or, when such a folder holds the agents'
 * working directory, the file itself). Folders are created here (so they can be covered before the first
 * agent starts); relative paths resolve against `cwd`, as the run resolves them.
 */
export function agentHiddenPaths(
  config: RunFilesConfig,
  { cwd, agentCwd }: { cwd: string; agentCwd: string },
) {
  const paths: string[] = [];
  const holds = (outer: string, inner: string) => inner === outer || inner.startsWith(`${outer}${sep}`);
  const folder = (path: string | undefined, mode: number) => {
    if (path === undefined) return;
    const absolute = resolve(cwd, path);
    if (holds(absolute, agentCwd)) return;
    mkdirSync(absolute, { recursive: true, mode });
    paths.push(absolute);
  };
  const fileOrFolder = (path: string | undefined) => {
    if (path === undefined) return;
    const absolute = resolve(cwd, path);
    const parent = dirname(absolute);
    if (!holds(parent, agentCwd) && !parent.includes("{")) folder(parent, 0o755);
    else if (!absolute.includes("{")) paths.push(absolute);
  };
  folder(config.runDir, 0o700);
  folder(config.sessionLogDir, 0o700);
  fileOrFolder(config.output);
  fileOrFolder(config.saveDebugRolloutData);
  for (const data of [config.promptData, ...(config.evalPromptData ?? []).map((spec) => spec.path)]) {
    if (data !== undefined) paths.push(resolve(cwd, data));
  }
  if (config.tokenizer !== undefined) {
    const tokenizer = resolveTokenizerPath(config.tokenizer);
    if (existsSync(tokenizer) && !holds(tokenizer, agentCwd)) paths.push(tokenizer);
  }
  return [...new Set(paths)];
}
