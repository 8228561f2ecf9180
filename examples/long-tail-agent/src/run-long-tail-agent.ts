import { readFileSync, writeFileSync } from "node:fs";
import type { LongTailParams } from "./draw-long-tail";
import { type ChatMessage, runLongTailSession } from "./run-long-tail-session";

/**
 * The draw's parameters from the environment: `LONG_TAIL_TURN_MEDIAN`, `LONG_TAIL_TURN_SIGMA`,
 * `LONG_TAIL_MAX_TURNS`, `LONG_TAIL_TOOL_MEDIAN_MS`, `LONG_TAIL_TOOL_SIGMA` (unset ones keep their
 * defaults).
 */
export function longTailParamsFromEnv(env: NodeJS.ProcessEnv): Partial<LongTailParams> {
  const read = (name: string) =>
    env[name] !== undefined && env[name] !== "" ? Number(env[name]) : undefined;
  const entries = Object.entries({
    turnMedian: read("LONG_TAIL_TURN_MEDIAN"),
    turnSigma: read("LONG_TAIL_TURN_SIGMA"),
    maxTurns: read("LONG_TAIL_MAX_TURNS"),
    toolMedianMs: read("LONG_TAIL_TOOL_MEDIAN_MS"),
    toolSigma: read("LONG_TAIL_TOOL_SIGMA"),
  }).filter(([, value]) => value !== undefined && Number.isFinite(value));
  return Object.fromEntries(entries) as Partial<LongTailParams>;
}

/**
 * The draw key of a session: `LONG_TAIL_SEED` (default 0), the prompt's `metadata.id` (else its text) and
 * the sample position within its Group, parsed from the session folder's name (`RELAX_SESSION_IO_DIR` is
 * `…/<group label>.s<i>-XXXXXX` under Relax's launcher), so the samples of a Group differ and a run is
 * reproducible. Without a position there (another launcher) the session's credential `sessionId` keys it:
 * samples still differ, but not reproducibly across runs.
 */
export function longTailKey(options: {
  seed: string;
  input: { messages?: ChatMessage[]; metadata?: unknown };
  sessionIoDir?: string;
  sessionId: string;
}): string {
  const metadata = options.input.metadata as { id?: unknown } | undefined;
  const prompt =
    metadata?.id !== undefined ? String(metadata.id) : JSON.stringify(options.input.messages ?? []);
  const folder = (options.sessionIoDir ?? "").split("/").filter(Boolean).at(-1) ?? "";
  const position = /\.s(\d+)-[^/]*$/.exec(folder)?.[1];
  return `${options.seed}|${prompt}|${position !== undefined ? `s${position}` : options.sessionId}`;
}

/**
 * The long-tail agent process (see docs/contract.md#agent-process-contract): reads `RELAX_INPUT_JSON`,
 * runs {@link runLongTailSession} against `RELAX_BASE_URL` (Chat Completions with `fetch`, the session id
 * as Bearer key, no client timeout: Relax may hold a request across a prelaunch wait or a partial-rollout
 * pause) and writes `{reward, metadata: {turns, tool_ms}}` to `RELAX_OUTPUT_JSON`.
 */
export async function runLongTailAgent(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const inputPath = env.RELAX_INPUT_JSON;
  const baseUrl = env.RELAX_BASE_URL;
  if (!inputPath || !baseUrl)
    throw new Error("the long-tail agent runs under Relax (RELAX_INPUT_JSON, RELAX_BASE_URL)");
  const input = JSON.parse(readFileSync(inputPath, "utf8")) as {
    messages?: ChatMessage[];
    metadata?: unknown;
  };
  if (!Array.isArray(input.messages) || input.messages.length === 0) {
    throw new Error("RELAX_INPUT_JSON.messages: the long-tail agent needs a non-empty list of messages");
  }
  const sessionId = env.RELAX_SESSION_ID ?? "";
  const result = await runLongTailSession({
    messages: input.messages,
    key: longTailKey({
      seed: env.LONG_TAIL_SEED ?? "0",
      input,
      sessionId,
      ...(env.RELAX_SESSION_IO_DIR !== undefined ? { sessionIoDir: env.RELAX_SESSION_IO_DIR } : {}),
    }),
    params: longTailParamsFromEnv(env),
    complete: async (messages) => {
      const response = await fetch(new URL("chat/completions", baseUrl), {
        method: "POST",
        headers: { authorization: `Bearer ${sessionId}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "model", messages }),
      });
      if (!response.ok)
        throw new Error(`chat completion failed: HTTP ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { choices?: Array<{ message?: ChatMessage }> };
      const message = body.choices?.[0]?.message;
      if (message === undefined) throw new Error("the model API returned no choice");
      return message;
    },
  });
  if (env.RELAX_OUTPUT_JSON) {
    writeFileSync(
      env.RELAX_OUTPUT_JSON,
      JSON.stringify({ reward: result.reward, metadata: { turns: result.turns, tool_ms: result.toolMs } }),
      "utf8",
    );
  }
}
