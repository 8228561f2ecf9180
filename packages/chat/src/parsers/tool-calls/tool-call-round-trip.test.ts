import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalToolArguments } from "../../canonical/canonical-tool-arguments";
import type { FunctionTool } from "../../messages/function-tool";
import { getToolCallParser, type ToolCallParserName } from "../parser-registry";

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
interface Call {
  name: string;
  args: Record<string, JsonValue>;
}

// `__proto__` is left out: `canonicalToolArguments` cannot hold it as an own key yet.
const key = fc.string({ unit: "grapheme", maxLength: 8 }).filter((k) => k !== "__proto__");
const jsonArgs = fc.dictionary(
  key,
  fc.jsonValue({ maxDepth: 2, stringUnit: "grapheme" }) as fc.Arbitrary<JsonValue>,
  {
    maxKeys: 4,
  },
);
const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,11}$/);
const jsonCalls = fc.array(fc.record({ name, args: jsonArgs }), { minLength: 1, maxLength: 4 });

/** Random text before/after calls: no markup, so only the calls' own syntax is under test. */
const prose = fc.stringMatching(/^[A-Za-z0-9 ,.!?\u4e00-\u4e2f]{0,20}$/);

const json = (value: unknown) => JSON.stringify(value);
const spaced = (value: unknown) => JSON.stringify(value, null, 1);

/** Renders calls as each model family writes them (what the chat templates produce). */
const render: Partial<Record<ToolCallParserName, (calls: Call[]) => string>> = {
  qwen25: (calls) =>
    calls.map((c) => `<tool_call>\n${json({ name: c.name, arguments: c.args })}\n</tool_call>`).join("\n"),
  hermes: (calls) =>
    calls.map((c) => `<tool_call>${spaced({ name: c.name, arguments: c.args })}</tool_call>`).join(""),
  deepseekv3: (calls) =>
    `<｜tool▁calls▁begin｜>${calls
      .map(
        (c) =>
          `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${c.name}\n\`\`\`json\n${json(c.args)}\n\`\`\`<｜tool▁call▁end｜>`,
      )
      .join("\n")}<｜tool▁calls▁end｜>`,
  deepseekv31: (calls) =>
    `<｜tool▁calls▁begin｜>${calls
      .map((c) => `<｜tool▁call▁begin｜>${c.name}<｜tool▁sep｜>${json(c.args)}<｜tool▁call▁end｜>`)
      .join("")}<｜tool▁calls▁end｜>`,
  kimi_k2: (calls) =>
    `<|tool_calls_section_begin|>${calls
      .map(
        (c, i) =>
          `<|tool_call_begin|>functions.${c.name}:${i}<|tool_call_argument_begin|>${json(c.args)}<|tool_call_end|>`,
      )
      .join("")}<|tool_calls_section_end|>`,
  llama3: (calls) =>
    `<|python_tag|>${calls.map((c) => json({ name: c.name, parameters: c.args })).join("; ")}`,
  mistral: (calls) => calls.map((c) => `[TOOL_CALLS]${c.name}[ARGS]${json(c.args)}`).join(""),
  pythonic: (calls) =>
    `[${calls
      .map(
        (c) =>
          `${c.name}(${Object.entries(c.args)
            .map(([k, v]) => `${k}=${python(v)}`)
            .join(", ")})`,
      )
      .join(", ")}]`,
  "gpt-oss": (calls) =>
    calls
      .map(
        (c, i) =>
          `${i === 0 ? "" : "<|start|>assistant"}<|channel|>commentary to=functions.${c.name} <|constrain|>json<|message|>${json(c.args)}<|call|>`,
      )
      .join(""),
};

/** A Python literal for a JSON value (JSON string escapes are valid Python escapes). */
function python(value: JsonValue): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (Array.isArray(value)) return `[${value.map(python).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${python(v)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

const expected = (calls: Call[]) =>
  calls.map((c) => ({ name: c.name, arguments: canonicalToolArguments(c.args) }));

describe("tool-call parsers: parse(render(calls)) = calls", () => {
  it.each(Object.keys(render) as ToolCallParserName[])("%s", (parserName) => {
    const parser = getToolCallParser(parserName);
    const renderCalls = render[parserName]!;
    const identifierCalls =
      parserName === "pythonic"
        ? fc.array(
            fc.record({
              name,
              args: fc.dictionary(
                fc.stringMatching(/^[a-z_][a-z0-9_]{0,7}$/),
                fc.jsonValue({ maxDepth: 2, stringUnit: "grapheme" }) as fc.Arbitrary<JsonValue>,
                { maxKeys: 4 },
              ),
            }),
            { minLength: 1, maxLength: 4 },
          )
        : jsonCalls;
    fc.assert(
      fc.property(identifierCalls, prose, prose, (calls, before, after) => {
        const text = `${before}${renderCalls(calls)}${parserName === "llama3" ? "" : after}`;
        const result = parser.parse({ text, tools: [], finishReason: "stop" });
        expect(result.failures).toEqual([]);
        expect(result.calls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(
          expected(calls),
        );
        expect(result.calls.map((c) => c.callIndex)).toEqual(calls.map((_, i) => i));
        const around = [before.trim(), parserName === "llama3" ? "" : after.trim()].filter((t) => t !== "");
        expect(result.content).toBe(around.join("\n"));
        if (parserName === "kimi_k2") {
          expect(result.calls.map((c) => c.nativeId)).toEqual(
            calls.map((c, i) => `functions.${c.name}:${i}`),
          );
        }
      }),
      { numRuns: 30 },
    );
  });
});

/** Schema-typed formats: values of every JSON-schema type, rendered as the templates render them. */
const typedValue = fc.oneof(
  fc.record({ type: fc.constant("string" as const), value: fc.string({ unit: "grapheme", maxLength: 12 }) }),
  fc.record({ type: fc.constant("integer" as const), value: fc.integer() }),
  fc.record({
    type: fc.constant("number" as const),
    value: fc.double({ noNaN: true, noDefaultInfinity: true }),
  }),
  fc.record({ type: fc.constant("boolean" as const), value: fc.boolean() }),
  fc.record({ type: fc.constant("null" as const), value: fc.constant(null) }),
  fc.record({
    type: fc.constant("array" as const),
    value: fc.array(fc.jsonValue({ maxDepth: 1, stringUnit: "grapheme" }), { maxLength: 3 }),
  }),
  fc.record({
    type: fc.constant("object" as const),
    value: fc.dictionary(key, fc.jsonValue({ maxDepth: 1, stringUnit: "grapheme" }), { maxKeys: 3 }),
  }),
);
const typedCall = fc.record({
  name,
  params: fc.dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,7}$/), typedValue, { maxKeys: 5 }),
});

type TypedCall = typeof typedCall extends fc.Arbitrary<infer T> ? T : never;

const textValue = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
const renderTyped: Record<"glm45" | "glm47" | "qwen3_coder", (calls: TypedCall[]) => string> = {
  glm45: (calls) =>
    calls
      .map(
        (c) =>
          `<tool_call>${c.name}\n${Object.entries(c.params)
            .map(([k, p]) => `<arg_key>${k}</arg_key>\n<arg_value>${textValue(p.value)}</arg_value>\n`)
            .join("")}</tool_call>`,
      )
      .join("\n"),
  glm47: (calls) =>
    calls
      .map(
        (c) =>
          `<tool_call>${c.name}${Object.entries(c.params)
            .map(([k, p]) => `<arg_key>${k}</arg_key><arg_value>${textValue(p.value)}</arg_value>`)
            .join("")}</tool_call>`,
      )
      .join(""),
  qwen3_coder: (calls) =>
    calls
      .map(
        (c) =>
          `<tool_call>\n<function=${c.name}>\n${Object.entries(c.params)
            .map(([k, p]) => `<parameter=${k}>\n${textValue(p.value)}\n</parameter>\n`)
            .join("")}</function>\n</tool_call>`,
      )
      .join("\n"),
};

describe("schema-typed tool-call parsers: parse(render(calls)) = calls", () => {
  it.each(Object.keys(renderTyped) as Array<keyof typeof renderTyped>)("%s", (parserName) => {
    const parser = getToolCallParser(parserName);
    fc.assert(
      fc.property(fc.array(typedCall, { minLength: 1, maxLength: 3 }), (calls) => {
        // One tool per call (names may repeat: the first schema wins, so give repeats the same schema).
        const tools: FunctionTool[] = calls.map((c) => ({
          type: "function",
          function: {
            name: c.name,
            parameters: {
              type: "object",
              properties: Object.fromEntries(Object.entries(c.params).map(([k, p]) => [k, { type: p.type }])),
            },
          },
        }));
        const firstSchema = new Map<string, Record<string, string>>();
        for (const c of calls) {
          if (!firstSchema.has(c.name)) {
            firstSchema.set(
              c.name,
              Object.fromEntries(Object.entries(c.params).map(([k, p]) => [k, p.type])),
            );
          }
        }
        fc.pre(
          calls.every((c) =>
            Object.entries(c.params).every(([k, p]) => firstSchema.get(c.name)?.[k] === p.type),
          ),
        );
        const result = parser.parse({ text: renderTyped[parserName](calls), tools, finishReason: "stop" });
        expect(result.failures).toEqual([]);
        expect(result.calls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(
          calls.map((c) => ({
            name: c.name,
            arguments: canonicalToolArguments(
              Object.fromEntries(Object.entries(c.params).map(([k, p]) => [k, p.value])),
            ),
          })),
        );
        expect(result.content).toBe("");
      }),
      { numRuns: 40 },
    );
  });
});
