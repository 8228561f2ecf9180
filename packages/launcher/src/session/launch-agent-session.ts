import type { AgentOutcome } from "../outcome/agent-outcome";
import { LocalProcessBackend } from "../sandbox/local-process-backend";
import { AgentSession } from "./agent-session";
import type { AgentSessionHandle } from "./agent-session-handle";
import { type LaunchAgentSessionOptions, resolveLaunchSettings } from "./launch-settings";

export type { LaunchAgentSessionOptions } from "./launch-settings";

let defaultBackend: LocalProcessBackend | undefined;

function sharedLocalBackend(): LocalProcessBackend {
  if (defaultBackend === undefined) defaultBackend = new LocalProcessBackend();
  return defaultBackend;
}

/**
 * Launches one agent session: creates the sandbox and IO directory, writes `RELAX_INPUT_JSON`, runs the
 * harness's `prepare` and the `beforeRun` hooks, then starts `bash -lc <command>` in a new process group
 * with the `RELAX_*` contract environment and stdout+stderr to the session log. Resolves once the process
 * runs; `handle.done` reports how it ended. Cleanup (harness `cleanup`, sandbox `destroy`, IO directory
 * removal unless `keepIoDir`) always runs, on every path.
 *
 * @example
 * const session = await launchAgentSession({ sessionId, groupId, rolloutMode: "train", baseUrl,
 *   command: "python -m my_agent", cwd: "/srv/agent", input: { messages } });
 * session.activate(); // the Group got its Runtime lease
 * const outcome = await session.done; // status: succeeded | failed | terminated
 *
 * @throws {AgentConfigError} bad options (`ReservedEnvKeyError` for `RELAX_*` keys), before anything runs.
 * @throws {SessionInputError} `input` is not `{messages?, metadata?}`.
 * @throws {AgentExecutionError} (`kind: "launch"`) the shell could not be started.
 * @throws {ReaperUnavailableError} no `relax-reaper` binary and no fallback allowed.
 * Errors from the backend, harness or `beforeRun` hooks propagate unchanged (after `onError` and cleanup).
 * @see docs/contract.md#agent-process-contract, docs/contract.md#agent-harness
 */
export async function launchAgentSession(options: LaunchAgentSessionOptions): Promise<AgentSessionHandle> {
  const settings = resolveLaunchSettings(options);
  options.signal?.throwIfAborted();
  return AgentSession.launch(options.backend ?? sharedLocalBackend(), settings);
}

/**
 * Launches a session with its budget active from the start and waits for it: the one-shot runner
 * (`prepare → beforeRun → command → afterRun / onError → cleanup`, docs/contract.md#agent-harness).
 *
 * @returns the outcome (`succeeded`, `failed` or `terminated`).
 * @throws as {@link launchAgentSession}, plus infrastructure errors from hooks and harness.
 */
export async function runAgentTask(options: LaunchAgentSessionOptions): Promise<AgentOutcome> {
  const handle = await launchAgentSession({ ...options, active: options.active ?? true });
  return handle.done;
}
