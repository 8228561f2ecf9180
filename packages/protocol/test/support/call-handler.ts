import type { AssistantTurn } from "@relax/chat";
import { createProtocolHandler, type ProtocolHandlerOptions } from "../../src/index";
import { counterIds } from "./scripted-generate";

/** Fixed clock for fixtures: 2026-01-01T00:00:00Z. */
export const FIXED_NOW = 1_767_225_600_000;

/**
 * Runs one request through a fresh handler whose `generate` returns `turn` or throws `error`, with
 * deterministic ids and clock and no heartbeat, and returns the status, headers and body text.
 */
export async function callHandler({
  path,
  body,
  turn,
  error,
  headers = { authorization: "Bearer session-1" },
  options = {},
}: {
  path: string;
  body: unknown;
  turn?: AssistantTurn | undefined;
  error?: unknown;
  headers?: Record<string, string>;
  options?: Partial<ProtocolHandlerOptions>;
}): Promise<{ status: number; headers: Headers; text: string }> {
  const handler = createProtocolHandler({
    generate: async () => {
      if (error !== undefined) throw error;
      if (turn === undefined) throw new Error("no turn");
      return turn;
    },
    createId: counterIds(),
    now: () => FIXED_NOW,
    heartbeatMs: 0,
    ...options,
  });
  const response = await handler(
    new Request(`http://relax.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  return { status: response.status, headers: response.headers, text: await response.text() };
}
