import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AgentExecutionError, runAgentTask } from "../src/index";
import { createTestBackend, shellQuote } from "./helpers";

const noisyAgent = fileURLToPath(new URL("./fixtures/noisy-agent.mjs", import.meta.url));

function expectedLog(lines: number): Buffer {
  let text = "";
  for (let index = 0; index < lines; index++) text += `${index} 日本語テキスト 🚀 ${"é".repeat(index % 7)}\n`;
  return Buffer.from(`${text}fatal: 失敗しました\n`);
}

describe("crash with a large combined log", () => {
  it("should carry the last 8 KiB of stdout+stderr, cut on a character boundary", async () => {
    // Pick a line count whose 8192-byte window starts inside a multi-byte character.
    let lines = 3000;
    while ((expectedLog(lines)[expectedLog(lines).length - 8192]! & 0xc0) !== 0x80) lines++;
    const full = expectedLog(lines);
    // Uncapped: the agent writes the log file directly, so stdout and stderr keep their exact order even
    // when a pipe would fill up (see the capped test below).
    const { backend } = await createTestBackend({ logMaxBytes: 0 });
    const outcome = await runAgentTask({
      sessionId: "sess-crash",
      sessionLabel: "sess-crash",
      groupId: "g",
      rolloutMode: "train",
      baseUrl: "http://h/v1",
      command: `${shellQuote(process.execPath)} ${shellQuote(noisyAgent)} ${lines}`,
      backend,
    });
    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") return;
    const { error } = outcome;
    expect(AgentExecutionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "exit", exitCode: 3, signal: null, sessionId: "sess-crash" });
    const tail = Buffer.from(error.logTail);
    // Exactly the suffix of the log that starts at the first character boundary in the window.
    let start = full.length - 8192;
    while ((full[start]! & 0xc0) === 0x80) start++;
    expect(tail.equals(full.subarray(start))).toBe(true);
    expect(tail.length).toBeLessThanOrEqual(8192);
    expect(tail.length).toBeGreaterThanOrEqual(8189);
    expect(error.logTail).not.toContain("\uFFFD");
    expect(error.logTail.endsWith("fatal: 失敗しました\n")).toBe(true);
    expect(error.message).toBe(
      `Agent session sess-crash exited with code 3.\n--- agent log tail ---\n${error.logTail}`,
    );
  });

  it("should cap the log at --agent-log-max-bytes, keeping head and tail and saying how much was cut", async () => {
    const { backend } = await createTestBackend({ logMaxBytes: 1000 });
    // 20000 lines "line <n>\n" and a last one, all on stdout (Node writes a full pipe asynchronously).
    const script =
      'for (let i = 0; i < 20000; i++) process.stdout.write("line " + i + "\\n"); process.stdout.write("last words\\n"); process.exitCode = 4;';
    const outcome = await runAgentTask({
      sessionId: "sess-cap",
      sessionLabel: "sess-cap",
      groupId: "g",
      rolloutMode: "train",
      baseUrl: "http://h/v1",
      command: `${shellQuote(process.execPath)} -e ${shellQuote(script)}`,
      backend,
      keepIoDir: true,
    });
    let full = "";
    for (let i = 0; i < 20000; i++) full += `line ${i}\n`;
    full += "last words\n";
    const cut = full.length - 1000;
    const log = readFileSync(outcome.logPath, "utf8");
    expect(log).toBe(
      `${full.slice(0, 500)}\n[relax: ${cut} bytes of agent output cut here (--agent-log-max-bytes 1000)]\n${full.slice(-500)}`,
    );
    expect(statSync(outcome.logPath).mode & 0o777).toBe(0o600);
    expect(outcome.status).toBe("failed");
    if (outcome.status === "failed")
      expect(outcome.error.logTail.endsWith("line 19999\nlast words\n")).toBe(true);
  });
});
