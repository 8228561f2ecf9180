import { posix } from "node:path";
import { assertNoReservedEnvKeys } from "../config/parse-agent-env";

/**
 * Names of the variables Relax injects into every agent process.
 * @see docs/contract.md#agent-process-contract
 */
export const RELAX_ENV = {
  /** Path of the session input JSON (`{messages?, metadata?}`), written before the process starts. */
  inputJson: "RELAX_INPUT_JSON",
  /** Path where the agent may write its session output (JSON object or JSONL export records). */
  outputJson: "RELAX_OUTPUT_JSON",
  /** The per-session temporary directory holding both files. */
  sessionIoDir: "RELAX_SESSION_IO_DIR",
  /** Base URL of the agentic model API (OpenAI / Responses / Anthropic Messages endpoints). */
  baseUrl: "RELAX_BASE_URL",
  /** Session id, also the API credential (`Authorization: Bearer <id>`). */
  sessionId: "RELAX_SESSION_ID",
  /** `train` or `eval`. */
  rolloutMode: "RELAX_ROLLOUT_MODE",
  /** Runtime Group id. */
  groupId: "RELAX_GROUP_ID",
} as const;

/** File name of the session input inside the IO directory. */
export const SESSION_INPUT_FILE = "session_input.json";
/** File name of the session output inside the IO directory (the agent creates it, or not). */
export const SESSION_OUTPUT_FILE = "session_output.json";
/** File name of the combined stdout+stderr log when no log directory is configured. */
export const COMMAND_LOG_FILE = "command.log";

/** Whether the session produces training data (`train`) or evaluation metrics (`eval`). */
export type RolloutMode = "train" | "eval";

/** Where the contract files live, as paths seen from inside the sandbox. */
export interface SessionIoPaths {
  /** `RELAX_SESSION_IO_DIR` */
  ioDir: string;
  /** `RELAX_INPUT_JSON` = `<ioDir>/session_input.json` */
  inputJson: string;
  /** `RELAX_OUTPUT_JSON` = `<ioDir>/session_output.json` */
  outputJson: string;
}

/** Builds the contract paths for an IO directory (POSIX paths: sandboxes are Linux). */
export function sessionIoPaths(ioDir: string): SessionIoPaths {
  return {
    ioDir,
    inputJson: posix.join(ioDir, SESSION_INPUT_FILE),
    outputJson: posix.join(ioDir, SESSION_OUTPUT_FILE),
  };
}

/** Identity of one session as the agent sees it. */
export interface SessionIdentity {
  sessionId: string;
  groupId: string;
  rolloutMode: RolloutMode;
  /** Base URL the agent calls, e.g. `http://10.0.0.5:8000/agentic_api/v1`; passed through unchanged. */
  baseUrl: string;
}

/**
 * The seven `RELAX_*` variables for one session.
 * @see docs/contract.md#agent-process-contract
 */
export function buildContractEnv({ identity, paths }: { identity: SessionIdentity; paths: SessionIoPaths }) {
  return {
    [RELAX_ENV.inputJson]: paths.inputJson,
    [RELAX_ENV.outputJson]: paths.outputJson,
    [RELAX_ENV.sessionIoDir]: paths.ioDir,
    [RELAX_ENV.baseUrl]: identity.baseUrl,
    [RELAX_ENV.sessionId]: identity.sessionId,
    [RELAX_ENV.rolloutMode]: identity.rolloutMode,
    [RELAX_ENV.groupId]: identity.groupId,
  } satisfies Record<string, string>;
}

/**
 * The environment overlay for an agent process, in precedence order (later wins): `agentEnv`
 * (`--agent-env`), the harness's own variables, then the `RELAX_*` contract. The backend lays this over its
 * base environment (the launcher's `process.env` for local processes).
 *
 * @throws {ReservedEnvKeyError} when `agentEnv` or `harnessEnv` sets a `RELAX_*` key.
 */
export function buildAgentEnv({
  agentEnv = {},
  harnessEnv = {},
  identity,
  paths,
}: {
  agentEnv?: Readonly<Record<string, string>>;
  harnessEnv?: Readonly<Record<string, string>> | undefined;
  identity: SessionIdentity;
  paths: SessionIoPaths;
}): Record<string, string> {
  assertNoReservedEnvKeys(agentEnv, "agentEnv");
  assertNoReservedEnvKeys(harnessEnv, "harness.env");
  return { ...agentEnv, ...harnessEnv, ...buildContractEnv({ identity, paths }) };
}
