import type { StandinPolicy } from "../standin/standin-policy";
import { chatCompletionFromTurn, generateWithPolicy } from "./policy-turn";
import { type ScriptedServer, startScriptedServer } from "./scripted-server";

/**
 * A Chat Completions server whose replies come from a stand-in policy over the real Qwen3 template
 * ({@link generateWithPolicy}). The `rid` of each turn is `<session>-req-<n>`: the Bearer credential (the
 * session id) and the 1-based count of that session's requests, so runs are reproducible.
 */
export function startPolicyChatServer({
  policy,
  tokenize = false,
}: {
  policy: StandinPolicy;
  tokenize?: boolean;
}): Promise<ScriptedServer> {
  const counts = new Map<string, number>();
  return startScriptedServer({
    replies: async (request) => {
      const session = String(request.headers.authorization ?? "").replace(/^Bearer /, "");
      const count = (counts.get(session) ?? 0) + 1;
      counts.set(session, count);
      const body = request.body as { messages: unknown[]; tools?: unknown[] };
      const turn = await generateWithPolicy({
        policy,
        messages: body.messages,
        ...(body.tools ? { tools: body.tools } : {}),
        rid: `${session}-req-${count}`,
        tokenize,
      });
      return { json: chatCompletionFromTurn(turn) };
    },
  });
}
