import type { TextTokenizer, VisionProcessorConfig } from "@relax/chat";
import { loadFunction } from "@relax/export";
import { ConfigError } from "@relax/rollout";
import { createSglangClient, type SglangClient } from "@relax/sglang";

/** The inference backend of a run: SGLang workers / a router, or the built-in stand-in engine. */
export interface Backend {
  client: SglangClient;
  /** `"sglang"` for real servers; `"standin"` for the built-in SGLang-compatible stand-in (not a model). */
  kind: "sglang" | "standin";
  /** Human-readable description for the start-up banner. */
  description: string;
  /**
   * Where the engine is, for other processes that call it (gateway shards build their own client from
   * it): one URL (a server, a router, the stand-in) or SGLang workers.
   */
  endpoint: { baseUrl: string } | { workers: string[] };
  close(): Promise<void>;
}

/** What {@link StandinStarter.start} is given: the stand-in's options, with the loaded policy function. */
export interface StandinStartOptions {
  tokenizer: TextTokenizer;
  /** The policy loaded from `--engine-policy` (a `StandinPolicy` of `@relax/standin`; the starter checks it). */
  policy: unknown;
  seed: number;
  /** The stand-in's context length in tokens. */
  contextLength: number;
  /** Per-token latency, in ms. */
  tokenLatencyMs: number;
  /** `--tokenizer` as given (the stand-in reports it as its model). */
  tokenizerPath: string;
  vision?: { processor: VisionProcessorConfig; imagePadId: number };
}

/**
 * Starts the SGLang-compatible stand-in engine (a scripted policy, not a model) on a loopback port for a
 * run without `--sglang-url`. The `relax` CLI and tests pass `{ start: startStandin }` of `@relax/standin`;
 * this package never depends on the stand-in.
 */
export interface StandinStarter {
  start(options: StandinStartOptions): Promise<{ url: string; close(): Promise<void> }>;
}

/** Options of {@link startBackend}. */
export interface StartBackendOptions {
  /** SGLang worker URLs, or one router URL; empty starts the stand-in. */
  sglangUrls: string[];
  /** Use SGLang's engine sessions on `/generate` (`SglangClientOptions.engineSessions`). @default false */
  engineSessions?: boolean;
  /** Policy module `path[#export]` of the stand-in. */
  enginePolicy?: string;
  /** Starts the stand-in when there is no SGLang URL (see {@link StandinStarter}). */
  standin?: StandinStarter;
  tokenizer: TextTokenizer;
  tokenizerName: string;
  /** The stand-in's context length in tokens. */
  contextLength: number;
  seed: number;
  /** Directory that relative policy paths resolve against. @default process.cwd() */
  baseDir?: string;
  /** Per-token latency of the stand-in, in ms. @default 0 */
  tokenLatencyMs?: number;
  /** The stand-in serves images like a vision engine (placeholder check, expanded prompt length). */
  vision?: { processor: VisionProcessorConfig; imagePadId: number };
}

/**
 * Connects to SGLang (`--sglang-url`: one URL is a server or a router; several are workers picked by
 * consistent hashing of the session id), or, with no URL, starts the SGLang-compatible stand-in engine
 * through the injected `standin` starter with the policy module `--engine-policy`. The stand-in is a
 * scripted stand-in for SGLang used for demos and tests, not a model.
 *
 * @throws ConfigError with no URL and no stand-in starter, or no `--engine-policy`.
 */
export async function startBackend(options: StartBackendOptions): Promise<Backend> {
  const engineSessions = options.engineSessions === true;
  if (options.sglangUrls.length > 0) {
    const client =
      options.sglangUrls.length === 1
        ? createSglangClient({ baseUrl: options.sglangUrls[0], engineSessions })
        : createSglangClient({ workers: options.sglangUrls, engineSessions });
    return {
      client,
      endpoint:
        options.sglangUrls.length === 1
          ? { baseUrl: options.sglangUrls[0]! }
          : { workers: [...options.sglangUrls] },
      kind: "sglang",
      description: `SGLang at ${options.sglangUrls.join(", ")}`,
      close: async () => {},
    };
  }
  if (options.standin === undefined) {
    throw new ConfigError({
      message:
        "--sglang-url: no inference backend; give the SGLang server's URL (the stand-in engine, not a model, is only started by the relax CLI and tests)",
    });
  }
  if (options.enginePolicy === undefined) {
    throw new Error("the stand-in engine needs --engine-policy");
  }
  const policy = await loadFunction<(...args: never[]) => unknown>({
    spec: options.enginePolicy,
    ...(options.baseDir !== undefined ? { baseDir: options.baseDir } : {}),
  });
  const standin = await options.standin.start({
    tokenizer: options.tokenizer,
    policy,
    seed: options.seed,
    contextLength: options.contextLength,
    tokenLatencyMs: options.tokenLatencyMs ?? 0,
    tokenizerPath: options.tokenizerName,
    ...(options.vision !== undefined ? { vision: options.vision } : {}),
  });
  const { url } = standin;
  return {
    client: createSglangClient({ baseUrl: url, engineSessions }),
    endpoint: { baseUrl: url },
    kind: "standin",
    description: `built-in SGLang-compatible stand-in engine at ${url} (scripted policy ${options.enginePolicy}; not a model)`,
    close: () => standin.close(),
  };
}
