import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildGsm8kPrompt, readGsm8kRows } from "@relax-examples/gsm8k-calculator";
import {
  anthropicMessageSse,
  anthropicSseFromTurn,
  anthropicToChat,
  bundleAgentEntries,
  generateWithPolicy,
  runAgentProcess,
  type ScriptedReply,
  type ScriptedServer,
  startScriptedServer,
} from "@relax-examples/kit/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { calculatorAnthropicTool } from "../src/index";
import policy from "../src/policy";

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

const janet = readGsm8kRows()[0]!;
const prompt = buildGsm8kPrompt(janet.question);
function relaxEnv(
  origin: string,
  sessionId: string,
  input: unknown,
): { env: Record<string, string>; outputFile: string } {
  const io = mkdtempSync(join(tmpdir(), "anthropic-agent-"));
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

describe("Anthropic GSM8K agent as a child process", () => {
  it("should stream /v1/messages, send back content blocks as returned, run tool_use and score the answer", async () => {
    const thinking1 = { type: "thinking" as const, thinking: "Eggs left first.", signature: "sig-1" };
    const use1 = {
      type: "tool_use" as const,
      id: "toolu_1",
      name: "calculator",
      input: { expression: "16-3-4" },
    };
    const use2 = {
      type: "tool_use" as const,
      id: "toolu_2",
      name: "calculator",
      input: { expression: "9*2" },
    };
    server = await startScriptedServer({
      replies: [
        { sse: anthropicMessageSse({ content: [thinking1, use1] }) },
        { sse: anthropicMessageSse({ content: [{ type: "text", text: "Let me multiply." }, use2] }) },
        { sse: anthropicMessageSse({ content: [{ type: "text", text: "She makes $18.\n#### 18" }] }) },
      ],
    });
    const input = {
      messages: [
        { role: "system", content: "Be exact." },
        { role: "user", content: prompt },
      ],
      metadata: { answer: "18" },
    };
    const { env, outputFile } = relaxEnv(server.origin, "sess-anthropic-1", input);
    const result = await runAgentProcess({ entry, cwd: packageDir, env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);

    expect(server.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
      ["/agentic_api/v1/messages", "Bearer sess-anthropic-1"],
      ["/agentic_api/v1/messages", "Bearer sess-anthropic-1"],
      ["/agentic_api/v1/messages", "Bearer sess-anthropic-1"],
    ]);
    const user = { role: "user", content: prompt };
    const turn1 = [
      user,
      { role: "assistant", content: [thinking1, use1] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "9" }] },
    ];
    const base = {
      model: "model",
      max_tokens: 2048,
      system: "Be exact.",
      tools: [calculatorAnthropicTool],
      stream: true,
    };
    expect(server.requests.map((request) => request.body)).toEqual([
      { ...base, messages: [user] },
      { ...base, messages: turn1 },
      {
        ...base,
        messages: [
          ...turn1,
          { role: "assistant", content: [{ type: "text", text: "Let me multiply." }, use2] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "18" }] },
        ],
      },
    ]);
    expect(JSON.parse(readFileSync(outputFile, "utf8"))).toEqual({
      metadata: { answer: "18", predicted: "18", turns: 3, tool_calls: 2, finish: "answer" },
      reward: 1,
    });
  });

  it("should play the GSM8K stand-in policy through the Messages API to reward 1 (sess-0)", async () => {
    const replies = async (request: { body: unknown }, index: number): Promise<ScriptedReply> => {
      const { messages, tools } = anthropicToChat(request.body as Parameters<typeof anthropicToChat>[0]);
      const turn = await generateWithPolicy({ policy, messages, tools, rid: `sess-0-turn-${index + 1}` });
      return { sse: anthropicSseFromTurn(turn) };
    };
    server = await startScriptedServer({ replies });
    const { env, outputFile } = relaxEnv(server.origin, "sess-0", {
      messages: [{ role: "user", content: prompt }],
      metadata: { answer: "18" },
    });
    const result = await runAgentProcess({ entry, cwd: packageDir, env });
    expect(result.stderr).toBe("");
    expect(JSON.parse(readFileSync(outputFile, "utf8"))).toEqual({
      metadata: { answer: "18", predicted: "18", turns: 3, tool_calls: 2, finish: "answer" },
      reward: 1,
    });
    const lastMessages = (server.requests[2]!.body as { messages: Array<{ role: string; content: unknown }> })
      .messages;
    expect(lastMessages[1]).toEqual({
      role: "assistant",
      content: [
        {
          type: "thinking",
          thinking: "Step 1 of 2: I need 16-3-4. I will use the calculator.",
          signature: "",
        },
        { type: "tool_use", id: "call_sess-0-turn-1_0", name: "calculator", input: { expression: "16-3-4" } },
      ],
    });
  });

  it("should run alone against ANTHROPIC_BASE_URL on a bundled row", async () => {
    server = await startScriptedServer({
      replies: [{ sse: anthropicMessageSse({ content: [{ type: "text", text: "#### 3" }] }) }],
    });
    const result = await runAgentProcess({
      entry,
      cwd: packageDir,
      args: ["--index", "1"],
      env: {
        ANTHROPIC_BASE_URL: server.origin,
        ANTHROPIC_API_KEY: "sk-ant-local",
        ANTHROPIC_MODEL: "claude-x",
      },
    });
    expect(result.code).toBe(0);
    expect(server.requests[0]!.path).toBe("/v1/messages");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-ant-local");
    expect(server.requests[0]!.body).toMatchObject({
      model: "claude-x",
      messages: [{ role: "user", content: buildGsm8kPrompt(readGsm8kRows()[1]!.question) }],
    });
    expect(JSON.parse(result.stdout)).toEqual({
      metadata: { answer: "3", predicted: "3", turns: 1, tool_calls: 0, finish: "answer" },
      reward: 1,
    });
  });
});
