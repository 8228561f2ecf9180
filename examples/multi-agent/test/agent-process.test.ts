import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bundleAgentEntries,
  runAgentProcess,
  type ScriptedServer,
  startPolicyChatServer,
} from "@relax-examples/kit/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  buildQuestionPrompt,
  buildSearcherPrompt,
  createMultiAgentPolicy,
  MAIN_SYSTEM_PROMPT,
  readCorpus,
  readQuestions,
  retrievePassages,
  SEARCHER_SYSTEM_PROMPT,
  searchTool,
} from "../src/index";

const packageDir = join(import.meta.dirname, "..");
let entry = "";
beforeAll(async () => {
  // The agent runs as Relax runs it: a bundled ESM file started with plain `node`.
  ({ agent: entry } = (await bundleAgentEntries({ packageDir, entries: { agent: "src/agent.ts" } })) as {
    agent: string;
  });
});
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const corpus = readCorpus();
const question = readQuestions()[0]!;
const prompt = buildQuestionPrompt(question.question);
const policy = createMultiAgentPolicy({ searcherErrorRate: 0 });

function relaxEnv(origin: string, sessionId: string, mode: "train" | "eval") {
  const io = mkdtempSync(join(tmpdir(), "multi-agent-"));
  writeFileSync(
    join(io, "input.json"),
    JSON.stringify({
      messages: [{ role: "user", content: prompt }],
      metadata: { answers: question.answers, index: 0 },
    }),
  );
  return {
    outputFile: join(io, "output.jsonl"),
    env: {
      RELAX_INPUT_JSON: join(io, "input.json"),
      RELAX_OUTPUT_JSON: join(io, "output.jsonl"),
      RELAX_SESSION_IO_DIR: io,
      RELAX_BASE_URL: `${origin}/agentic_api/`,
      RELAX_SESSION_ID: sessionId,
      RELAX_ROLLOUT_MODE: mode,
      RELAX_GROUP_ID: "group-0",
    },
  };
}
const readRecords = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

const call = (rid: string, query: string) => ({
  id: `call_${rid}_0`,
  type: "function",
  function: { name: "search", arguments: JSON.stringify({ query }) },
});
const searcherMessages = (query: string, answer: string) => [
  { role: "system", content: SEARCHER_SYSTEM_PROMPT },
  { role: "user", content: buildSearcherPrompt(query, retrievePassages({ corpus, query })) },
  { role: "assistant", content: answer, reasoning_content: `The passages say ${answer}.` },
];

describe("multi-agent app as a child process", () => {
  it("should run searchers as separate conversations of the session and export main + searcher records", async () => {
    server = await startPolicyChatServer({ policy });
    const { env, outputFile } = relaxEnv(server.origin, "sess-ma", "train");
    const result = await runAgentProcess({ entry, cwd: packageDir, env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);

    // main, searcher, main, searcher, main — all with the session id as credential.
    expect(server.requests.map((request) => [request.path, request.headers.authorization])).toEqual(
      Array.from({ length: 5 }, () => ["/agentic_api/chat/completions", "Bearer sess-ma"]),
    );
    expect(
      server.requests.map((request) => (request.body as { tools?: unknown }).tools !== undefined),
    ).toEqual([true, false, true, false, true]);
    expect(server.requests[1]!.body).toEqual({
      model: "model",
      messages: searcherMessages("capital of Marrow", "Port Tessaly").slice(0, 2),
    });

    const main = [
      { role: "system", content: MAIN_SYSTEM_PROMPT },
      { role: "user", content: prompt },
      {
        role: "assistant",
        content: null,
        reasoning_content: "Hop 1 of 2: I need to know the capital of Marrow.",
        tool_calls: [call("sess-ma-req-1", "capital of Marrow")],
      },
      { role: "tool", tool_call_id: "call_sess-ma-req-1_0", content: "Port Tessaly" },
      {
        role: "assistant",
        content: null,
        reasoning_content: "Hop 2 of 2: I need to know the river that flows through Port Tessaly.",
        tool_calls: [call("sess-ma-req-3", "river that flows through Port Tessaly")],
      },
      { role: "tool", tool_call_id: "call_sess-ma-req-3_0", content: "Amberflow" },
      { role: "assistant", content: "Answer: Amberflow", reasoning_content: "The searches found Amberflow." },
    ];
    // The main record is exactly the last main request plus the final reply.
    expect((server.requests[4]!.body as { messages: unknown[] }).messages).toEqual(main.slice(0, -1));
    expect(readRecords(outputFile)).toEqual([
      {
        name: "main",
        messages: main,
        tools: [searchTool],
        metadata: { role: "main", outcome: 1, predicted: "Amberflow", searches: 2 },
        reward: 1,
      },
      {
        name: "searcher_0",
        messages: searcherMessages("capital of Marrow", "Port Tessaly"),
        metadata: {
          role: "searcher",
          query: "capital of Marrow",
          passages: ["marrow", "keld", "saffra"],
          outcome: 1,
        },
      },
      {
        name: "searcher_1",
        messages: searcherMessages("river that flows through Port Tessaly", "Amberflow"),
        metadata: {
          role: "searcher",
          query: "river that flows through Port Tessaly",
          passages: ["port-tessaly", "amberflow", "lunmere"],
          outcome: 1,
        },
      },
    ]);
  });

  it("should export only the main context in eval", async () => {
    server = await startPolicyChatServer({ policy });
    const { env, outputFile } = relaxEnv(server.origin, "sess-eval", "eval");
    const result = await runAgentProcess({ entry, cwd: packageDir, env });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(5);
    expect(readRecords(outputFile).map((record) => [record.name, record.reward])).toEqual([["main", 1]]);
  });

  it("should run alone and print the records as JSONL", async () => {
    server = await startPolicyChatServer({ policy });
    const result = await runAgentProcess({
      entry,
      cwd: packageDir,
      args: ["--index", "7"],
      env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: "sk-local" },
    });
    expect(result.code).toBe(0);
    const records = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.map((record) => record.name)).toEqual(["main", "searcher_0", "searcher_1"]);
    expect(records[0].metadata).toEqual({ role: "main", outcome: 1, predicted: "Keld", searches: 2 });
  });
});
