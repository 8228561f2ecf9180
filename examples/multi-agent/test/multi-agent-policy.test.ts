import { renderQwen3Prompt, type ScriptedServer, startPolicyChatServer } from "@relax-examples/kit/testing";
import OpenAI from "openai";
import { afterAll, describe, expect, it } from "vitest";
import {
  buildQuestionPrompt,
  buildSearcherPrompt,
  createMultiAgentPolicy,
  MAIN_SYSTEM_PROMPT,
  multiAgentPolicy,
  NO_ANSWER,
  readCorpus,
  readQuestions,
  retrievePassages,
  runMultiAgent,
  SEARCHER_SYSTEM_PROMPT,
  searchTool,
} from "../src/index";
import defaultPolicy, { policy as namedPolicy } from "../src/policy";

const corpus = readCorpus();
const questions = readQuestions();
const exact = createMultiAgentPolicy({ searcherErrorRate: 0 });
const main = (question: string) => [
  { role: "system", content: MAIN_SYSTEM_PROMPT },
  { role: "user", content: buildQuestionPrompt(question) },
];
const searchCall = (id: string, query: string) => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id, type: "function", function: { name: "search", arguments: JSON.stringify({ query }) } }],
});
function request(messages: unknown[], tools?: unknown[], rid = "r-1") {
  const { inputIds, promptText } = renderQwen3Prompt({ messages, ...(tools ? { tools } : {}) });
  return { inputIds, promptText, sampling: {}, rid };
}

describe("multi-agent stand-in policy on real Qwen3 prompts", () => {
  it("should export the policy as default and as `policy`", () => {
    expect(defaultPolicy).toBe(multiAgentPolicy);
    expect(namedPolicy).toBe(multiAgentPolicy);
  });

  it("should make the main agent search hop by hop, filling queries with the answers received", async () => {
    const question = questions[0]!.question;
    expect((await exact(request(main(question), [searchTool]))).text).toBe(
      '<think>\nHop 1 of 2: I need to know the capital of Marrow.\n</think>\n\n<tool_call>\n{"name": "search", "arguments": {"query": "capital of Marrow"}}\n</tool_call>',
    );
    const afterOne = [
      ...main(question),
      searchCall("s1", "capital of Marrow"),
      { role: "tool", tool_call_id: "s1", content: "Port Tessaly" },
    ];
    expect((await exact(request(afterOne, [searchTool]))).text).toContain(
      '{"name": "search", "arguments": {"query": "river that flows through Port Tessaly"}}',
    );
    const afterTwo = [
      ...afterOne,
      searchCall("s2", "river that flows through Port Tessaly"),
      { role: "tool", tool_call_id: "s2", content: "Amberflow" },
    ];
    expect((await exact(request(afterTwo, [searchTool]))).text).toBe(
      "<think>\nThe searches found Amberflow.\n</think>\n\nAnswer: Amberflow",
    );
    const nothing = [
      ...main(question),
      searchCall("s1", "capital of Marrow"),
      { role: "tool", tool_call_id: "s1", content: NO_ANSWER },
    ];
    expect((await exact(request(nothing, [searchTool]))).text).toContain("Answer: unknown");
  });

  it("should answer as a searcher from the system prompt, and seed its wrong answers by rid", async () => {
    const query = "capital of Marrow";
    const searcher = [
      { role: "system", content: SEARCHER_SYSTEM_PROMPT },
      { role: "user", content: buildSearcherPrompt(query, retrievePassages({ corpus, query })) },
    ];
    expect((await exact(request(searcher))).text).toBe(
      "<think>\nThe passages say Port Tessaly.\n</think>\n\nPort Tessaly",
    );
    const unknown = [searcher[0]!, { role: "user", content: buildSearcherPrompt("colour of the sky", []) }];
    expect((await exact(request(unknown))).text).toBe(
      `<think>\nThe passages do not answer this query.\n</think>\n\n${NO_ANSWER}`,
    );
    const answers = await Promise.all(
      ["a", "b", "c", "d", "e", "f", "g", "h"].map(async (rid) =>
        (await multiAgentPolicy(request(searcher, undefined, rid))).text.split("\n").at(-1),
      ),
    );
    // Seeded by rid: rid "f" draws a wrong entity (about 15 % of searcher calls do).
    expect(answers).toEqual([
      "Port Tessaly",
      "Port Tessaly",
      "Port Tessaly",
      "Port Tessaly",
      "Port Tessaly",
      "Sel",
      "Port Tessaly",
      "Port Tessaly",
    ]);
  });
});

describe("main agent + searchers against the stand-in policy", () => {
  let server: ScriptedServer | undefined;
  afterAll(async () => server?.close());

  it("should answer every bundled question with searcherErrorRate 0, one searcher per hop", async () => {
    server = await startPolicyChatServer({ policy: exact });
    for (const [index, question] of questions.entries()) {
      const client = new OpenAI({
        baseURL: `${server.origin}/agentic_api/`,
        apiKey: `exact-${index}`,
        maxRetries: 0,
      });
      const episode = await runMultiAgent({
        client,
        messages: [{ role: "user", content: buildQuestionPrompt(question.question) }],
        answers: question.answers,
        corpus,
      });
      expect({ index, reward: episode.reward, searches: episode.searches }).toEqual({
        index,
        reward: 1,
        searches: question.hops.length,
      });
      expect(episode.records.map((record) => record.name)).toEqual([
        "main",
        ...question.hops.map((_, i) => `searcher_${i}`),
      ]);
    }
    await server.close();
    server = undefined;
  });

  it("should vary rewards within Groups of 4 with the default policy", async () => {
    server = await startPolicyChatServer({ policy: multiAgentPolicy });
    const groups: number[][] = [];
    for (const [index, question] of questions.entries()) {
      const rewards: number[] = [];
      for (let sample = 0; sample < 4; sample++) {
        const client = new OpenAI({
          baseURL: `${server.origin}/agentic_api/`,
          apiKey: `g${index}-s${sample}`,
          maxRetries: 0,
        });
        const episode = await runMultiAgent({
          client,
          messages: [{ role: "user", content: buildQuestionPrompt(question.question) }],
          answers: question.answers,
          corpus,
        });
        rewards.push(episode.reward);
      }
      groups.push(rewards);
    }
    const failures = groups.flat().filter((reward) => reward === 0).length;
    const mixed = groups.filter((rewards) => new Set(rewards).size > 1).length;
    // 48 sessions: a wrong searcher answer derails the next hop, so multi-hop questions fail more often.
    expect({ failures, mixed }).toEqual({ failures: 14, mixed: 7 });
  });
});
