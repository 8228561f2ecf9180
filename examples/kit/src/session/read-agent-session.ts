import { readFileSync } from "node:fs";
import { AgentSessionError } from "./agent-session-error";
import { type SessionInput, sessionInputSchema } from "./session-input";

/** Which SDK family the agent uses; picks the standalone fallback variables. */
export type AgentProvider = "openai" | "anthropic";

/**
 * Everything an example agent needs from its environment. Under Relax every field comes from the
 * `RELAX_*` variables; run alone, the provider's usual variables and a fallback input are used instead.
 */
export interface AgentSession {
  /** `"relax"` when started by Relax (`RELAX_BASE_URL` and `RELAX_SESSION_ID` set), else `"standalone"`. */
  launchedBy: "relax" | "standalone";
  /** The session input (`RELAX_INPUT_JSON`), or the fallback input when run alone. */
  input: SessionInput;
  /** Where to write the output (`RELAX_OUTPUT_JSON`); `undefined` prints it to stdout instead. */
  outputPath: string | undefined;
  /** Per-session scratch directory (`RELAX_SESSION_IO_DIR`), when given. */
  ioDir: string | undefined;
  /**
   * Model API base URL, passed to the SDK's `baseURL` unchanged (`RELAX_BASE_URL`, else
   * `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`); `undefined` keeps the SDK's default host.
   */
  baseURL: string | undefined;
  /** API credential: the session id under Relax, else `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, else `"EMPTY"`. */
  apiKey: string;
  /** `RELAX_SESSION_ID`, when launched by Relax. */
  sessionId: string | undefined;
  /** `RELAX_ROLLOUT_MODE`; `"train"` when unset. Eval runs usually export fewer contexts. */
  rolloutMode: "train" | "eval";
  /** `RELAX_GROUP_ID`, when launched by Relax. */
  groupId: string | undefined;
  /** Model name sent in requests (`OPENAI_MODEL` / `ANTHROPIC_MODEL`, else `"model"`); Relax only echoes it. */
  model: string;
}

/** Options of {@link readAgentSession}. */
export interface ReadAgentSessionOptions {
  provider: AgentProvider;
  /** Input used when `RELAX_INPUT_JSON` is unset (run alone): typically built from CLI arguments. */
  fallbackInput: () => SessionInput;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * Reads the agent process contract from the environment.
 * @see docs/contract.md#agent-process-contract (`RELAX_INPUT_JSON`, `RELAX_OUTPUT_JSON`,
 *   `RELAX_SESSION_IO_DIR`, `RELAX_BASE_URL`, `RELAX_SESSION_ID`, `RELAX_ROLLOUT_MODE`, `RELAX_GROUP_ID`)
 * @throws AgentSessionError when the input file is unreadable, not JSON or not `{messages?, metadata?}`,
 *   or `RELAX_ROLLOUT_MODE` is neither `train` nor `eval`.
 */
export function readAgentSession({
  provider,
  fallbackInput,
  env = process.env,
}: ReadAgentSessionOptions): AgentSession {
  const relaxBase = nonEmpty(env.RELAX_BASE_URL);
  const sessionId = nonEmpty(env.RELAX_SESSION_ID);
  const inputPath = nonEmpty(env.RELAX_INPUT_JSON);
  const mode = nonEmpty(env.RELAX_ROLLOUT_MODE) ?? "train";
  if (mode !== "train" && mode !== "eval") {
    throw new AgentSessionError({
      field: "RELAX_ROLLOUT_MODE",
      reason: `must be "train" or "eval", got ${JSON.stringify(mode)}`,
    });
  }
  const isOpenAI = provider === "openai";
  return {
    launchedBy: relaxBase !== undefined && sessionId !== undefined ? "relax" : "standalone",
    input: inputPath === undefined ? fallbackInput() : readSessionInput(inputPath),
    outputPath: nonEmpty(env.RELAX_OUTPUT_JSON),
    ioDir: nonEmpty(env.RELAX_SESSION_IO_DIR),
    baseURL: relaxBase ?? nonEmpty(isOpenAI ? env.OPENAI_BASE_URL : env.ANTHROPIC_BASE_URL),
    apiKey: sessionId ?? nonEmpty(isOpenAI ? env.OPENAI_API_KEY : env.ANTHROPIC_API_KEY) ?? "EMPTY",
    sessionId,
    rolloutMode: mode,
    groupId: nonEmpty(env.RELAX_GROUP_ID),
    model: nonEmpty(isOpenAI ? env.OPENAI_MODEL : env.ANTHROPIC_MODEL) ?? "model",
  };
}

/**
 * Reads and validates a session input file.
 * @throws AgentSessionError naming `RELAX_INPUT_JSON` and the field path.
 */
export function readSessionInput(path: string): SessionInput {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new AgentSessionError({ field: "RELAX_INPUT_JSON", reason: `cannot read ${path}`, cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new AgentSessionError({ field: "RELAX_INPUT_JSON", reason: `${path} is not JSON`, cause: error });
  }
  const parsed = sessionInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const location = issue.path.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`));
    const field = ["RELAX_INPUT_JSON", ...location].join("");
    throw new AgentSessionError({ field, reason: issue.message });
  }
  return parsed.data as SessionInput;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
