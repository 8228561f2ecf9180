import type { AgentHarness } from "./agent-harness";

/**
 * The Relax contract harness: runs the user's `--agent-command` unchanged; the agent reads
 * `RELAX_INPUT_JSON`, calls `RELAX_BASE_URL` and writes `RELAX_OUTPUT_JSON` itself.
 *
 * @param options.command shell command (`bash -lc`).
 * @param options.cwd working directory. @default the session's `cwd`
 * @param options.env extra variables (over `--agent-env`); `RELAX_*` keys are rejected at launch.
 */
export function createCommandHarness({
  command,
  cwd,
  env,
}: {
  command: string;
  cwd?: string;
  env?: Readonly<Record<string, string>>;
}): AgentHarness {
  return {
    name: "command",
    command: () => ({ command, ...(cwd !== undefined && { cwd }), ...(env !== undefined && { env }) }),
  };
}
