import { hasMarker, LauncherError } from "./launcher-error";

const marker = "relax.error.AgentConfigError";
const symbol = Symbol.for(marker);

/**
 * Invalid launcher configuration, detected before any process starts (e.g. `--agent-env` entry without
 * `=`, a missing `--agent-cwd`, a non-positive `--agent-timeout`). `path` names the offending field,
 * e.g. `agentEnv[2]` or `timeoutMs`.
 */
export class AgentConfigError extends LauncherError {
  protected readonly [symbol] = true;
  /** Field path of the bad setting, e.g. `agentEnv[1]`. */
  readonly path: string;

  constructor({ path, message, cause }: { path: string; message: string; cause?: unknown }) {
    super({ name: "AgentConfigError", message: `${path}: ${message}`, cause });
    this.path = path;
  }

  static override isInstance(error: unknown): error is AgentConfigError {
    return hasMarker(error, marker);
  }
}
