import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bundleAgentEntries,
  chatCompletion,
  runAgentProcess,
  type ScriptedServer,
  startScriptedServer,
} from "@relax-examples/kit/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

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

describe("minimal agent as a child process", () => {
  it("should send the session messages once with the session id as Bearer and write the implicit output", async () => {
    server = await startScriptedServer({
      replies: [
        { json: chatCompletion({ content: "Rayleigh scattering.", reasoningContent: "Short answer." }) },
      ],
    });
    const io = mkdtempSync(join(tmpdir(), "minimal-agent-"));
    const messages = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Why is the sky blue?" },
    ];
    writeFileSync(join(io, "input.json"), JSON.stringify({ messages, metadata: { id: 3 } }));
    const result = await runAgentProcess({
      entry,
      cwd: packageDir,
      env: {
        RELAX_INPUT_JSON: join(io, "input.json"),
        RELAX_OUTPUT_JSON: join(io, "output.json"),
        RELAX_SESSION_IO_DIR: io,
        RELAX_BASE_URL: `${server.origin}/agentic_api/`,
        RELAX_SESSION_ID: "sess-min-1",
        RELAX_ROLLOUT_MODE: "train",
        RELAX_GROUP_ID: "group-0",
      },
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/agentic_api/chat/completions");
    expect(request!.headers.authorization).toBe("Bearer sess-min-1");
    expect(request!.body).toEqual({ model: "model", messages });
    expect(readFileSync(join(io, "output.json"), "utf8")).toBe('{"metadata":{"task_success":1},"reward":1}');
    expect(result.stdout).toBe("");
  });

  it("should run alone against OPENAI_BASE_URL and print the conversation with the whole assistant message", async () => {
    server = await startScriptedServer({
      replies: [
        { json: chatCompletion({ content: "Because of scattering.", reasoningContent: "Physics." }) },
      ],
    });
    const result = await runAgentProcess({
      entry,
      cwd: packageDir,
      args: ["Why blue?"],
      env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: "sk-local", OPENAI_MODEL: "qwen3-8b" },
    });
    expect(result.code).toBe(0);
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-local");
    expect(server.requests[0]!.body).toEqual({
      model: "qwen3-8b",
      messages: [{ role: "user", content: "Why blue?" }],
    });
    expect(JSON.parse(result.stdout)).toEqual({
      messages: [
        { role: "user", content: "Why blue?" },
        { role: "assistant", content: "Because of scattering.", reasoning_content: "Physics." },
      ],
      output: { metadata: { task_success: 1 }, reward: 1 },
    });
  });

  it("should exit 1 when the model API fails, without retrying", async () => {
    server = await startScriptedServer({
      replies: [{ status: 503, json: { error: { message: "busy", type: "server_error" } } }],
    });
    const io = mkdtempSync(join(tmpdir(), "minimal-agent-"));
    writeFileSync(join(io, "input.json"), JSON.stringify({ messages: [{ role: "user", content: "hi" }] }));
    const result = await runAgentProcess({
      entry,
      cwd: packageDir,
      env: {
        RELAX_INPUT_JSON: join(io, "input.json"),
        RELAX_OUTPUT_JSON: join(io, "output.json"),
        RELAX_BASE_URL: `${server.origin}/agentic_api/`,
        RELAX_SESSION_ID: "s",
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("503");
    expect(server.requests).toHaveLength(1);
  });
});
