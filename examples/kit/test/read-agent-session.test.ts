import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentSessionError, readAgentSession } from "../src/index";

const dir = mkdtempSync(join(tmpdir(), "kit-session-"));
function inputFile(content: string): string {
  const file = join(dir, `input-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, content);
  return file;
}

describe("readAgentSession", () => {
  it("should read every RELAX_* variable of the agent process contract", () => {
    const file = inputFile(
      JSON.stringify({ messages: [{ role: "user", content: "hi" }], metadata: { answer: "3" } }),
    );
    const session = readAgentSession({
      provider: "openai",
      fallbackInput: () => ({ messages: [{ role: "user", content: "unused" }] }),
      env: {
        RELAX_INPUT_JSON: file,
        RELAX_OUTPUT_JSON: "/tmp/out.json",
        RELAX_SESSION_IO_DIR: "/tmp/io",
        RELAX_BASE_URL: "http://127.0.0.1:9/agentic_api/",
        RELAX_SESSION_ID: "sess-7",
        RELAX_ROLLOUT_MODE: "eval",
        RELAX_GROUP_ID: "g-2",
        OPENAI_BASE_URL: "http://ignored/",
        OPENAI_API_KEY: "sk-ignored",
      },
    });
    expect(session).toEqual({
      launchedBy: "relax",
      input: { messages: [{ role: "user", content: "hi" }], metadata: { answer: "3" } },
      outputPath: "/tmp/out.json",
      ioDir: "/tmp/io",
      baseURL: "http://127.0.0.1:9/agentic_api/",
      apiKey: "sess-7",
      sessionId: "sess-7",
      rolloutMode: "eval",
      groupId: "g-2",
      model: "model",
    });
  });

  it("should fall back to the provider's variables and the fallback input when run alone", () => {
    const openai = readAgentSession({
      provider: "openai",
      fallbackInput: () => ({ messages: [{ role: "user", content: "alone" }] }),
      env: { OPENAI_BASE_URL: "http://localhost:8000/v1", OPENAI_API_KEY: "sk-1", OPENAI_MODEL: "qwen3" },
    });
    expect(openai).toMatchObject({
      launchedBy: "standalone",
      input: { messages: [{ role: "user", content: "alone" }] },
      outputPath: undefined,
      baseURL: "http://localhost:8000/v1",
      apiKey: "sk-1",
      rolloutMode: "train",
      model: "qwen3",
    });
    const anthropic = readAgentSession({
      provider: "anthropic",
      fallbackInput: () => ({}),
      env: { ANTHROPIC_BASE_URL: "http://localhost:9000", OPENAI_API_KEY: "sk-other" },
    });
    expect(anthropic).toMatchObject({ baseURL: "http://localhost:9000", apiKey: "EMPTY", model: "model" });
  });

  it("should name the field path of an invalid input", () => {
    const file = inputFile(JSON.stringify({ messages: [{ role: "user", content: "a" }, { role: "robot" }] }));
    const read = () =>
      readAgentSession({ provider: "openai", fallbackInput: () => ({}), env: { RELAX_INPUT_JSON: file } });
    expect(read).toThrow(AgentSessionError);
    try {
      read();
    } catch (error) {
      expect(AgentSessionError.isInstance(error)).toBe(true);
      expect((error as AgentSessionError).field).toBe("RELAX_INPUT_JSON.messages[1].role");
    }
  });

  it("should reject a file that is not JSON and an unknown rollout mode", () => {
    const file = inputFile("{not json");
    expect(() =>
      readAgentSession({ provider: "openai", fallbackInput: () => ({}), env: { RELAX_INPUT_JSON: file } }),
    ).toThrow(`RELAX_INPUT_JSON: ${file} is not JSON`);
    expect(() =>
      readAgentSession({
        provider: "openai",
        fallbackInput: () => ({}),
        env: { RELAX_ROLLOUT_MODE: "test" },
      }),
    ).toThrow('RELAX_ROLLOUT_MODE: must be "train" or "eval", got "test"');
  });
});
