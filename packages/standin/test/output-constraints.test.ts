import { buildToolCallStructuralTag, type StructuralTagFormat } from "@relax/chat";
import { afterEach, describe, expect, it } from "vitest";
import { matchStructuralTag } from "../src/constraints/match-structural-tag";
import { createStandinEngine, readAnswerSchema, type StandinEngine, type StandinPolicy } from "../src/index";
import { collectSse } from "../src/testing/index";
import { chatPrompt, IM_END, qwen3Tokenizer } from "./support/qwen3-tokenizer";

const tokenizer = await qwen3Tokenizer();
const engines: StandinEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

async function start(policy: StandinPolicy) {
  const engine = createStandinEngine({ tokenizer, seed: 7, policy });
  engines.push(engine);
  await engine.listen();
  return engine;
}

const prompt = tokenizer.encode(chatPrompt("Weather in Paris?"));

async function generate(engine: StandinEngine, samplingParams: Record<string, unknown>, stream = false) {
  const response = await fetch(`${engine.url}/generate`, {
    method: "POST",
    body: JSON.stringify({
      input_ids: prompt,
      sampling_params: { max_new_tokens: 200, ...samplingParams },
      stream,
    }),
  });
  return response;
}

const answerSchema = {
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
  additionalProperties: false,
};
const tools = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: {
        type: "object",
        properties: { city: { type: "string" }, days: { type: "integer" } },
        required: ["city"],
      },
    },
  },
  {
    type: "function" as const,
    function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } },
  },
];
const structuralTag = (reasoningParser?: string) =>
  JSON.stringify(
    buildToolCallStructuralTag({
      toolCallParser: "qwen25",
      tools,
      responseSchema: answerSchema,
      ...(reasoningParser !== undefined ? { reasoningParser, promptTail: "<|im_start|>assistant\n" } : {}),
    }),
  );
const weatherCall =
  '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>';

describe("stand-in constraint enforcement: json_schema", () => {
  it("should generate a policy output the schema allows", async () => {
    const engine = await start(() => '{"answer": "sunny"}');
    const response = await generate(engine, { json_schema: JSON.stringify(answerSchema) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { output_ids: number[] };
    expect(body.output_ids).toEqual([...tokenizer.encode('{"answer": "sunny"}'), IM_END]);
  });

  it("should refuse with 400 a policy output the schema forbids, naming the parameter and the offset", async () => {
    const engine = await start(() => '{"answer": 42}');
    const response = await generate(engine, { json_schema: JSON.stringify(answerSchema) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message:
          "the policy output violates sampling_params.json_schema at offset 0 of 14: expected JSON valid " +
          'against the schema (/answer: Instance type "number" is invalid. Expected "string".); output around ' +
          'it: "⟨here⟩{\\"answer\\": 42}"',
      },
    });
  });

  it("should refuse text that is not JSON at its first wrong character, in an SSE error event when streaming", async () => {
    const engine = await start(() => "It is sunny.");
    const response = await generate(engine, { json_schema: JSON.stringify(answerSchema) }, true);
    expect(response.status).toBe(200);
    const events = await collectSse(response);
    expect(events.map((event) => event.data)).toEqual([
      JSON.stringify({
        error: {
          message:
            'the policy output violates sampling_params.json_schema at offset 0 of 12: expected JSON: a JSON value, got "I"; output around it: "⟨here⟩It is sunny."',
        },
      }),
      "[DONE]",
    ]);
  });

  it("should check the output up to its first stop token, which the engine allows once the grammar is done", async () => {
    const engine = await start(() => '{"answer": "sunny"}<|im_end|>');
    const response = await generate(engine, { json_schema: JSON.stringify(answerSchema) });
    expect(response.status).toBe(200);
  });

  it("should refuse text after the JSON value", async () => {
    const engine = await start(() => '{"answer": "sunny"} Anything else?');
    const response = await generate(engine, { json_schema: JSON.stringify(answerSchema) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /^the policy output violates sampling_params\.json_schema at offset 19 of 34: expected the end of the output;/,
    );
  });
});

describe("stand-in constraint enforcement: structural_tag", () => {
  it("should accept one or more tool calls whose arguments match their tool's schema", async () => {
    for (const text of [
      weatherCall,
      `${weatherCall}\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>`,
    ]) {
      const engine = await start(() => text);
      const response = await generate(engine, { structural_tag: structuralTag() });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { output_ids: number[] }).output_ids).toEqual([
        ...tokenizer.encode(text),
        IM_END,
      ]);
    }
  });

  it("should accept a final answer valid against the response schema", async () => {
    const engine = await start(() => '{"answer": "sunny"}');
    const response = await generate(engine, { structural_tag: structuralTag() });
    expect(response.status).toBe(200);
  });

  it("should refuse a tool call whose arguments violate the tool's schema, at the arguments", async () => {
    const text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": 7}}\n</tool_call>';
    const engine = await start(() => text);
    const response = await generate(engine, { structural_tag: structuralTag() });
    expect(response.status).toBe(400);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toBe(
      `the policy output violates sampling_params.structural_tag at offset ${text.indexOf('{"city"')} of ${text.length}: ` +
        'expected JSON valid against the schema (/city: Instance type "number" is invalid. Expected "string".); ' +
        `output around it: ${JSON.stringify(`l>\n{"name": "get_weather", "arguments": ⟨here⟩{"city": 7}}\n</tool_call>`)}`,
    );
  });

  it("should refuse a free-text answer, and a call of an undeclared tool", async () => {
    for (const [text, offset] of [
      ["It is sunny in Paris.", 0],
      ['<tool_call>\n{"name": "get_news", "arguments": {}}\n</tool_call>', 12],
    ] as const) {
      const engine = await start(() => text);
      const response = await generate(engine, { structural_tag: structuralTag() });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        new RegExp(`^the policy output violates sampling_params\\.structural_tag at offset ${offset} of `),
      );
    }
  });

  it("should accept a leading <think> block with a qwen3 reasoning parser, and no think block too", async () => {
    for (const text of [
      `<think>\nParis, so get_weather.\n</think>\n\n${weatherCall}`,
      '{"answer": "sunny"}',
    ]) {
      const engine = await start(() => text);
      expect((await generate(engine, { structural_tag: structuralTag("qwen3") })).status).toBe(200);
    }
  });

  it("should refuse a structural_tag it cannot compile before generating, as an engine does", async () => {
    const engine = await start(() => "unused");
    const bad = [
      [
        { type: "structural_tag", format: { type: "regex", pattern: "a+" } },
        'format.type "regex" is not supported',
      ],
      [
        {
          type: "structural_tag",
          format: { type: "or", elements: [{ type: "any_text" }, { type: "const_string", value: "x" }] },
        },
        "format: the elements of an or must be all bounded or all unbounded",
      ],
      [
        {
          type: "structural_tag",
          format: { type: "tag", begin: "<a>", content: { type: "any_text" }, end: "" },
        },
        "format.end must not be empty: the content is unbounded",
      ],
      [{ structures: [], triggers: [] }, "the legacy form"],
    ] as const;
    for (const [tag, reason] of bad) {
      const response = await generate(engine, { structural_tag: JSON.stringify(tag) });
      expect(response.status).toBe(400);
      const { message } = ((await response.json()) as { error: { message: string } }).error;
      expect(message).toContain("sampling_params.structural_tag is invalid: ");
      expect(message).toContain(reason);
    }
    const both = await generate(engine, { json_schema: "{}", structural_tag: structuralTag() });
    expect(both.status).toBe(400);
    expect(engine.calls.filter((call) => call.path === "/generate")).toHaveLength(bad.length + 1);
  });
});

describe("matchStructuralTag", () => {
  const json = (schema: Record<string, unknown>): StructuralTagFormat => ({
    type: "json_schema",
    json_schema: schema,
  });
  const fn = (name: string) => ({
    type: "tag" as const,
    begin: `<function=${name}>`,
    content: json({ type: "object" }),
    end: "</function>",
  });

  it("should match triggered tags inside free text, and require one first with at_least_one", () => {
    const format: StructuralTagFormat = {
      type: "triggered_tags",
      triggers: ["<function="],
      tags: [fn("a"), fn("b")],
    };
    expect(
      matchStructuralTag(format, "hello <function=a>{}</function> bye <function=b>{}</function>"),
    ).toBeUndefined();
    expect(matchStructuralTag(format, "just text")).toBeUndefined();
    expect(matchStructuralTag(format, "x <function=c>{}</function>")).toEqual({
      offset: 2,
      expected: ['"<function=a>"', '"<function=b>"'],
    });
    expect(matchStructuralTag({ ...format, at_least_one: true }, "x <function=a>{}</function>")?.offset).toBe(
      0,
    );
    expect(
      matchStructuralTag(
        { ...format, at_least_one: true, stop_after_first: true },
        "<function=a>{}</function> more",
      ),
    ).toEqual({ offset: 25, expected: ["the end of the output"] });
  });

  it("should match tags joined by the separator only, and stop after the first with stop_after_first", () => {
    const format: StructuralTagFormat = {
      type: "tags_with_separator",
      tags: [fn("a"), fn("b")],
      separator: ",",
    };
    expect(matchStructuralTag(format, "")).toBeUndefined();
    expect(matchStructuralTag(format, "<function=a>{}</function>,<function=b>{}</function>")).toBeUndefined();
    expect(matchStructuralTag(format, "<function=a>{}</function> <function=b>{}</function>")?.offset).toBe(
      25,
    );
    expect(
      matchStructuralTag(
        { ...format, stop_after_first: true },
        "<function=a>{}</function>,<function=b>{}</function>",
      )?.offset,
    ).toBe(25);
  });

  it("should run any_text inside a tag up to the tag's first end, and to the end of the text outside", () => {
    const think: StructuralTagFormat = {
      type: "sequence",
      elements: [
        { type: "tag", begin: "<think>", content: { type: "any_text" }, end: "</think>" },
        { type: "const_string", value: "ok" },
      ],
    };
    expect(matchStructuralTag(think, "<think>a < b</think>ok")).toBeUndefined();
    expect(matchStructuralTag(think, "<think>a</think>b</think>ok")).toEqual({
      offset: 16,
      expected: ['"ok"'],
    });
    expect(matchStructuralTag({ type: "any_text" }, "anything </think> at all")).toBeUndefined();
  });
});

describe("readAnswerSchema", () => {
  it("should read json_schema, or the answer branch of a structural_tag and not the tools' schemas", () => {
    expect(readAnswerSchema({ json_schema: '{"type":"object"}' })).toBe('{"type":"object"}');
    expect(readAnswerSchema({ structural_tag: structuralTag() })).toBe(JSON.stringify(answerSchema));
    expect(readAnswerSchema({ structural_tag: structuralTag("qwen3") })).toBe(JSON.stringify(answerSchema));
    expect(readAnswerSchema({ structural_tag: "{" })).toBeUndefined();
    expect(readAnswerSchema({})).toBeUndefined();
    expect(readAnswerSchema(undefined)).toBeUndefined();
  });
});
