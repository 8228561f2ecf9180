import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bundleAgentEntries,
  chatCompletion,
  chatCompletionFromTurn,
  generateWithPolicy,
  runAgentProcess,
  type ScriptedReply,
  type ScriptedServer,
  startScriptedServer,
} from "@relax-examples/kit/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildGsm8kPrompt, calculatorTool, gsm8kPolicy, readGsm8kRows } from "../src/index";

const packageDir = join(import.meta.dirname, "..");
let entry = "";
beforeAll(async () => {
  // The agent runs as Relax runs it: a bundled ESM file started with plain `node`.
  ({ agent: entry } = (await bundleAgentEntries({ packageDir, entries: { agent: "src/agent.ts" } })) as {
    agent: string;
  });
});
const janet = readGsm8kRows()[0]!;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Writes a session input and returns the env contract for a Relax-launched agent. */
function relaxEnv(
  origin: string,
  sessionId: string,
  input: unknown,
): { env: Record<string, string>; outputFile: string } {
  const io = mkdtempSync(join(tmpdir(), "gsm8k-agent-"));
  writeFileSync(join(io, "input.json"), JSON.stringify(input));
  return {
    outputFile: join(io, "output.json"),
    env: {
      RELAX_INPUT_JSON: join(io, "input.json"),
      RELAX_OUTPUT_JSON: join(io, "output.json"),
      RELAX_SESSION_IO_DIR: io,
      RELAX_BASE_URL: `${origin}/agentic_api/`,
      RELAX_SESSION_ID: sessionId,
      RELAX_ROLLOUT_MODE: "train",
      RELAX_GROUP_ID: "group-0",
    },
  };
}
const janetInput = {
  messages: [{ role: "user", content: buildGsm8kPrompt(janet.question) }],
  metadata: { answer: "18", index: 0 },
};

describe("GSM8K calculator agent as a child process", () => {
  it("should loop over tool calls, run the calculator, resend the whole history and score the answer", async () => {
    const firstCall = { id: "call_a", name: "calculator", arguments: '{"expression": "16-3-4"}' };
    const secondCall = { id: "call_b", name: "calculator", arguments: '{"expression": "9*2"}' };
    server = await startScriptedServer({
      replies: [
        { json: chatCompletion({ reasoningContent: "Eggs left first.", toolCalls: [firstCall] }) },
        { json: chatCompletion({ reasoningContent: "Now the money.", toolCalls: [secondCall] }) },
        { json: chatCompletion({ content: "She makes $18.\n#### 18", reasoningContent: "Done." }) },
      ],
    });
    const { env, outputFile } = relaxEnv(server.origin, "sess-gsm8k-1", janetInput);
    const result = await runAgentProcess({ entry, cwd: packageDir, env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);

    const assistant1 = {
      role: "assistant",
      content: null,
      reasoning_content: "Eggs left first.",
      tool_calls: [
        {
          id: "call_a",
          type: "function",
          function: { name: "calculator", arguments: '{"expression": "16-3-4"}' },
        },
      ],
    };
    const assistant2 = {
      role: "assistant",
      content: null,
      reasoning_content: "Now the money.",
      tool_calls: [
        {
          id: "call_b",
          type: "function",
          function: { name: "calculator", arguments: '{"expression": "9*2"}' },
        },
      ],
    };
    const user = janetInput.messages[0];
    expect(server.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
      ["/agentic_api/chat/completions", "Bearer sess-gsm8k-1"],
      ["/agentic_api/chat/completions", "Bearer sess-gsm8k-1"],
      ["/agentic_api/chat/completions", "Bearer sess-gsm8k-1"],
    ]);
    expect(server.requests.map((request) => request.body)).toEqual([
      { model: "model", messages: [user], tools: [calculatorTool] },
      {
        model: "model",
        messages: [user, assistant1, { role: "tool", tool_call_id: "call_a", content: "9" }],
        tools: [calculatorTool],
      },
      {
        model: "model",
        messages: [
          user,
          assistant1,
          { role: "tool", tool_call_id: "call_a", content: "9" },
          assistant2,
          { role: "tool", tool_call_id: "call_b", content: "18" },
        ],
        tools: [calculatorTool],
      },
    ]);
    expect(JSON.parse(readFileSync(outputFile, "utf8"))).toEqual({
      metadata: { answer: "18", predicted: "18", turns: 3, tool_calls: 2, finish: "answer" },
      reward: 1,
    });
  });

  it("should score the stand-in policy's episodes through the official SDK: sess-0 right, sess-6 slips", async () => {
    const outcomes: unknown[] = [];
    for (const sessionId of ["sess-0", "sess-6"]) {
      const replies = async (request: { body: unknown }, index: number): Promise<ScriptedReply> => {
        const body = request.body as { messages: unknown[]; tools: unknown[] };
        const turn = await generateWithPolicy({
          policy: gsm8kPolicy,
          messages: body.messages,
          tools: body.tools,
          rid: `${sessionId}-turn-${index + 1}`,
        });
        return { json: chatCompletionFromTurn(turn) };
      };
      server = await startScriptedServer({ replies });
      const { env, outputFile } = relaxEnv(server.origin, sessionId, janetInput);
      const result = await runAgentProcess({ entry, cwd: packageDir, env });
      expect(result.stderr).toBe("");
      outcomes.push(JSON.parse(readFileSync(outputFile, "utf8")));
      await server.close();
      server = undefined;
    }
    expect(outcomes).toEqual([
      { metadata: { answer: "18", predicted: "18", turns: 3, tool_calls: 2, finish: "answer" }, reward: 1 },
      // sess-6 slips at both steps (17-3-4 = 10, then 11*2 = 22).
      { metadata: { answer: "18", predicted: "22", turns: 3, tool_calls: 2, finish: "answer" }, reward: 0 },
    ]);
  });

  it("should run alone on a bundled row and print the output", async () => {
    server = await startScriptedServer({ replies: [{ json: chatCompletion({ content: "#### 3" }) }] });
    const result = await runAgentProcess({
      entry,
      cwd: packageDir,
      args: ["--index", "1"],
      env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: "sk-local" },
    });
    expect(result.code).toBe(0);
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect((server.requests[0]!.body as { messages: unknown[] }).messages).toEqual([
      { role: "user", content: buildGsm8kPrompt(readGsm8kRows()[1]!.question) },
    ]);
    expect(JSON.parse(result.stdout)).toEqual({
      metadata: { answer: "3", predicted: "3", turns: 1, tool_calls: 0, finish: "answer" },
      reward: 1,
    });
  });

  it("should exit 1 without the reference answer in the session metadata", async () => {
    server = await startScriptedServer({ replies: [] });
    const { env } = relaxEnv(server.origin, "s", { messages: janetInput.messages });
    const result = await runAgentProcess({ entry, cwd: packageDir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("RELAX_INPUT_JSON.metadata.answer");
    expect(server.requests).toHaveLength(0);
  });
});
