import type { RolloutMode, SessionIoPaths } from "../contract/agent-process-contract";
import type { SessionInput } from "../input/session-input";
import type { ParsedSessionOutput } from "../output/session-output";
import type { ProcessExit } from "../process/agent-process";
import type { Sandbox } from "../sandbox/sandbox-backend";

/** Everything a harness or hook knows about the session it serves. */
export interface HarnessContext {
  /** `RELAX_SESSION_ID`, the session's API credential: keep it out of file names and logs. */
  readonly sessionId: string;
  /** Non-secret label of the session, for names and logs. */
  readonly sessionLabel: string;
  readonly groupId: string;
  readonly rolloutMode: RolloutMode;
  /** `RELAX_BASE_URL`: where the agent's model client must point. */
  readonly baseUrl: string;
  /** The session's sandbox (write config files, read artefacts). */
  readonly sandbox: Sandbox;
  /** Contract paths inside the sandbox (`RELAX_SESSION_IO_DIR`, `RELAX_INPUT_JSON`, `RELAX_OUTPUT_JSON`). */
  readonly paths: SessionIoPaths;
  /** The session input written to `RELAX_INPUT_JSON`. */
  readonly input: SessionInput;
  /** Validated `--agent-env` settings. */
  readonly agentEnv: Readonly<Record<string, string>>;
  /** Aborted when the session is terminated. */
  readonly signal: AbortSignal;
}

/** The process a harness wants started. */
export interface AgentCommand {
  /** Shell command, run as `bash -lc <command>`. */
  command: string;
  /** Extra variables (over `--agent-env`, under the `RELAX_*` contract); `RELAX_*` keys are rejected. */
  env?: Readonly<Record<string, string>>;
  /** Working directory inside the sandbox. @default the configured `--agent-cwd`, else the sandbox's */
  cwd?: string;
}

/**
 * How to prepare, start and read one kind of agent (Codex, Claude Code, a custom app...), independent of
 * where it runs. The session runner calls `prepare` → hooks' `beforeRun` → `command` → (process runs) →
 * `parseResult` → hooks' `afterRun`, and always `cleanup` at the end.
 * @see docs/contract.md#agent-harness
 */
export interface AgentHarness {
  /** Short name for logs. */
  readonly name: string;
  /** Writes the agent's own configuration into the sandbox (e.g. a `config.toml` pointing at `baseUrl`). */
  prepare?(context: HarnessContext): void | Promise<void>;
  /** The command to run (called after `prepare` and the `beforeRun` hooks). */
  command(context: HarnessContext): AgentCommand | Promise<AgentCommand>;
  /**
   * Turns a successful exit (code 0) into the session output. Default: parse `RELAX_OUTPUT_JSON`.
   * Throw `SessionOutputError` for invalid output (the session then fails with `invalid-output`).
   */
  parseResult?(
    context: HarnessContext,
    exit: ProcessExit,
  ): ParsedSessionOutput | Promise<ParsedSessionOutput>;
  /** Releases harness resources; runs whatever happened, before the sandbox is destroyed. */
  cleanup?(context: HarnessContext): void | Promise<void>;
}
