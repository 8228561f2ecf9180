import { readFileSync } from "node:fs";
import { CanonicalizationError, chatMessageSchema, functionToolSchema } from "@relax/chat";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeError } from "../src/errors/describe-error";
import {
  type ConvertedRequest,
  convertAnthropicMessagesRequest,
  convertChatCompletionsRequest,
  convertResponsesRequest,
} from "../src/index";
import { REJECTED_CASES } from "./rejected-cases";

/** What a valid projection must satisfy, checked against `@relax/chat`'s own schemas. */
const projectionSchema = z.object({
  messages: z.array(chatMessageSchema).min(1),
  tools: z.array(functionToolSchema),
  chatTemplateKwargs: z.record(z.string(), z.unknown()),
  maxTokens: z.number().int().positive().optional(),
  stop: z.array(z.string().min(1)).min(1).optional(),
  seed: z.number().int().optional(),
  logprobs: z.boolean().optional(),
  stream: z.boolean(),
  model: z.string().optional(),
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function fixture(name: string): Json {
  return JSON.parse(
    readFileSync(new URL(`./__fixtures__/weather-conversation/${name}.json`, import.meta.url), "utf8"),
  );
}

/** Every path (as key lists) into a JSON value, the root included. */
function paths(
  value: Json,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) paths(item, [...prefix, i], out);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) paths(item, [...prefix, key], out);
  }
  return out;
}

/** Applies one mutation at `path`: replace, delete, null, wrap, empty, duplicate or retype. */
function mutate(root: Json, path: (string | number)[], op: number, replacement: Json): Json {
  if (path.length === 0) return op % 2 === 0 ? replacement : [root];
  const copy = structuredClone(root);
  let parent: Json = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, Json>)[key] as Json;
  const key = path.at(-1)!;
  const container = parent as Record<string | number, Json>;
  const current = container[key] as Json;
  switch (op) {
    case 0:
      container[key] = replacement;
      break;
    case 1:
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete container[key];
      break;
    case 2:
      container[key] = null;
      break;
    case 3:
      container[key] = [current];
      break;
    case 4:
      container[key] = Array.isArray(current) ? [] : typeof current === "string" ? "" : {};
      break;
    case 5:
      if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(current));
      else
        container[key] =
          typeof current === "number"
            ? String(current)
            : typeof current === "string"
              ? current.length
              : !current;
      break;
    default:
      container[key] = typeof current === "string" ? `${current}\u0000\ud800` : -1.5;
  }
  return copy;
}

/** Cheap replacement values: the edge cases of each JSON type. */
const SMALL_VALUE: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e300,
    "",
    "x",
    "image/png",
    "function",
    "user",
    [],
    {},
    [{}],
    { type: "text" },
  ),
  fc.string({ maxLength: 6 }),
  fc.integer(),
);

/** Seeds mutated 1–4 times: mostly almost-valid bodies, which reach the deep checks. */
function mutatedBodies(seeds: Json[]): fc.Arbitrary<Json> {
  const step = fc.tuple(fc.nat(), fc.nat({ max: 6 }), SMALL_VALUE);
  return fc
    .tuple(fc.constantFrom(...seeds), fc.array(step, { minLength: 1, maxLength: 4 }))
    .map(([seed, steps]) =>
      steps.reduce<Json>((body, [pick, op, replacement]) => {
        const all = paths(body);
        return mutate(body, all[pick % all.length]!, op, replacement);
      }, seed),
    );
}

/** Random objects over the protocol's own keys, and arbitrary JSON. */
function randomBodies(keys: string[]): fc.Arbitrary<Json> {
  const value = fc.oneof(
    { weight: 3, arbitrary: SMALL_VALUE },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
  );
}

const PROTOCOLS = [
  {
    name: "chat-completions",
    convert: convertChatCompletionsRequest,
    path: "/v1/chat/completions",
    keys: [
      "messages",
      "tools",
      "chat_template_kwargs",
      "max_tokens",
      "max_completion_tokens",
      "stop",
      "seed",
      "logprobs",
      "stream",
      "model",
    ],
    seeds: [fixture("chat-completions"), { messages: [{ role: "user", content: "hi" }] }],
  },
  {
    name: "responses",
    convert: convertResponsesRequest,
    path: "/v1/responses",
    keys: [
      "input",
      "instructions",
      "tools",
      "max_output_tokens",
      "reasoning",
      "stream",
      "model",
      "previous_response_id",
    ],
    seeds: [fixture("responses"), { input: "hi" }],
  },
  {
    name: "anthropic-messages",
    convert: convertAnthropicMessagesRequest,
    path: "/v1/messages",
    keys: ["messages", "system", "max_tokens", "stop_sequences", "thinking", "tools", "stream", "model"],
    seeds: [fixture("anthropic-messages"), { max_tokens: 8, messages: [{ role: "user", content: "hi" }] }],
  },
] as const;

/** `messages[3].tool_calls[0].id: reason` — a field path, a colon, a reason. */
const FIELD_PATH_MESSAGE = /^(body|[a-z_]+)(\[\d+\]|\.[A-Za-z_$][\w$]*)*: \S/;

describe.each(PROTOCOLS)("fuzzing $name bodies", ({ convert, path, keys, seeds }) => {
  // 10,000 conversions take a few seconds on an idle core; the limit leaves room for a loaded machine.
  it("should answer 10,000 random and mutated bodies with a valid projection or a 400 naming a field", {
    timeout: 180_000,
  }, () => {
    const rejectedSeeds = REJECTED_CASES.filter((c) => c.path === path && typeof c.body === "object").map(
      (c) => c.body as Json,
    );
    const outcomes = { projected: 0, rejected: 0 };
    fc.assert(
      fc.property(
        fc.oneof(
          { weight: 3, arbitrary: mutatedBodies([...seeds] as Json[]) },
          { weight: 1, arbitrary: mutatedBodies(rejectedSeeds) },
          { weight: 1, arbitrary: randomBodies([...keys]) },
        ),
        (body) => {
          let converted: ConvertedRequest;
          try {
            converted = (convert as (body: unknown) => ConvertedRequest)(body);
          } catch (error) {
            // The only allowed failure: a typed 400 whose message starts with a field path.
            if (!CanonicalizationError.isInstance(error)) throw error;
            const descriptor = describeError(error);
            if (descriptor.status !== 400 || !FIELD_PATH_MESSAGE.test(descriptor.message)) {
              throw new Error(`not a 400 naming a field: ${descriptor.status} ${descriptor.message}`);
            }
            outcomes.rejected++;
            return;
          }
          projectionSchema.parse(converted.request);
          for (const warning of converted.warnings) {
            if (!warning.message.includes(warning.path))
              throw new Error(`warning without its path: ${warning.message}`);
          }
          outcomes.projected++;
        },
      ),
      { numRuns: 10_000, seed: 20_260_101 },
    );
    expect(outcomes.projected + outcomes.rejected).toBe(10_000);
    // Both outcomes must be well represented, or the fuzzer is not reaching the deep checks.
    expect(outcomes.projected).toBeGreaterThan(500);
    expect(outcomes.rejected).toBeGreaterThan(2_000);
  });
});
