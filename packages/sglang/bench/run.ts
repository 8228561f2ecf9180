/**
 * `pnpm bench`: the client's overhead per `/generate` call — serialising 8k / 64k input ids, ky, and
 * parsing + validating the response — against a raw `fetch` that posts the same bytes and reads the reply
 * as text. The server is a local node:http server answering a canned SGLang body (512 output tokens with
 * logprob triples). Also times `ky.post` of the same bytes (ky builds a `Request`, which costs undici more
 * than `fetch(url, init)` for large bodies) and the two CPU steps alone. Prints mean / p50 latency and the
 * client ÷ raw ratio. Figures vary with machine load.
 * Cannot measure: a real SGLang server (the server here answers a fixed body at once) or remote links.
 */
import { createServer } from "node:http";
import ky from "ky";
import { Bench } from "tinybench";
import { convertGenerateRequest } from "../src/convert-generate-request";
import { createSglangClient } from "../src/index";
import { parseGenerateResponse } from "../src/parse-generate-response";

const OUTPUT_TOKENS = 512;
const outputIds = Array.from({ length: OUTPUT_TOKENS }, (_, index) => 1000 + ((index * 7919) % 150_000));
const cannedBody = JSON.stringify({
  text: "x".repeat(OUTPUT_TOKENS * 4),
  output_ids: outputIds,
  meta_info: {
    id: "bench",
    finish_reason: { type: "length", length: OUTPUT_TOKENS },
    prompt_tokens: 0,
    completion_tokens: OUTPUT_TOKENS,
    cached_tokens: 0,
    weight_version: "default",
    input_token_logprobs: [],
    output_token_logprobs: outputIds.map((id, index) => [-((index % 97) / 31), id, null]),
    e2e_latency: 0.5,
  },
});

const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(cannedBody),
    });
    response.end(cannedBody);
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();
const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
const client = createSglangClient({ baseUrl: url });

function ms(value: number | undefined): string {
  return value === undefined ? "n/a" : `${value.toFixed(3)} ms`;
}

const rows: Record<string, string | number>[] = [];
for (const inputTokens of [8 * 1024, 64 * 1024]) {
  const inputIds = Array.from({ length: inputTokens }, (_, index) => (index * 104_729) % 151_000);
  const rawBody = JSON.stringify(
    convertGenerateRequest({
      rid: "0123456789abcdef0123456789abcdef",
      inputIds,
      sampling: { maxNewTokens: 512 },
    }),
  );
  const bench = new Bench({ time: 1500, warmupTime: 300 });
  bench
    .add(`raw fetch (${inputTokens} ids)`, async () => {
      const response = await fetch(`${url}/generate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: rawBody,
      });
      await response.text();
    })
    .add(`ky.post of the same bytes (${inputTokens} ids)`, async () => {
      const response = await ky.post(`${url}/generate`, {
        body: rawBody,
        headers: { "content-type": "application/json" },
        retry: 0,
        timeout: false,
      });
      await response.text();
    })
    .add(`client.generate (${inputTokens} ids)`, async () => {
      await client.generate({ inputIds, sampling: { maxNewTokens: 512 } });
    })
    .add(`serialise request only (${inputTokens} ids)`, () => {
      JSON.stringify(convertGenerateRequest({ rid: "r", inputIds, sampling: { maxNewTokens: 512 } }));
    })
    .add(`parse response only (${OUTPUT_TOKENS} output ids)`, () => {
      parseGenerateResponse(JSON.parse(cannedBody), { url, rid: "r", inputTokens });
    });
  await bench.run();
  const stat = (index: number, key: "mean" | "p50") => {
    const result = bench.tasks[index]!.result;
    return "latency" in result ? result.latency[key] : undefined;
  };
  for (const [index, task] of bench.tasks.entries()) {
    const result = task.result;
    rows.push({
      task: task.name,
      mean: ms(stat(index, "mean")),
      p50: ms(stat(index, "p50")),
      samples: "latency" in result ? result.latency.samplesCount : 0,
    });
  }
  const ratio = (key: "mean" | "p50") => {
    const raw = stat(0, key);
    const viaClient = stat(2, key);
    return raw === undefined || viaClient === undefined ? "n/a" : `${(viaClient / raw).toFixed(2)}×`;
  };
  rows.push({
    task: `→ client ÷ raw fetch (${inputTokens} ids)`,
    mean: ratio("mean"),
    p50: ratio("p50"),
    samples: "",
  });
}
console.table(rows);
server.closeAllConnections();
server.close();
