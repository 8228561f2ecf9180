/**
 * Two `relax rollout` runs on one host (the built CLI, `dist/cli.js`, as root, both on the default uid
 * range 61000-61999), 8 sessions each, started 0.3 s apart against one stand-in engine (a scripted
 * SGLang-compatible engine, not a model). Before host-wide uid leases, both pools handed out the same uids
 * and one run's end-of-agent sweep (SIGKILL to every process of the uid) killed the other run's agent
 * (issue 29: 20 drops in one matrix). All 16 agents wait for each other, then run B's end 2 s before run
 * A's, so a uid shared with B would be swept while A's agent still runs. Needs root (CI runs as root) and `pnpm build`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readTrainingRowsFile, type TrainingRow } from "@relax/export";
import { afterAll, describe, expect, it } from "vitest";
import { AGENT_HOME_ENV, fixture, startRecordingEngine } from "./helpers";

const gatewayCli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

interface AgentResult {
  uid: number;
  startedAt: number;
  endedAt: number;
}

interface Run {
  dir: string;
  results: string;
  rows: string;
  child: ChildProcess;
  log: { text: string };
}

const runs: Run[] = [];
afterAll(() => {
  for (const run of runs) {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL");
    rmSync(run.dir, { recursive: true, force: true });
  }
});

/**
 * `relax rollout`: 4 Groups × 2 samples, one turn each; each agent then waits at `barrier` until all 16
 * agents of both runs are alive, and stays `sleepMs` longer.
 */
function startRun(name: string, engineUrl: string, barrier: string, sleepMs: number): Run {
  const dir = mkdtempSync(join(tmpdir(), `relax-two-gateways-${name}-`));
  chmodSync(dir, 0o711); // agents (pool uids) pass through to their session folders and RESULT_DIR
  const results = join(dir, "results");
  mkdirSync(results, { mode: 0o777 });
  chmodSync(results, 0o777);
  mkdirSync(join(dir, "tmp"));
  const rows = join(dir, "out", "rows.jsonl");
  const args = [
    gatewayCli,
    "rollout",
    ...["--sglang-url", engineUrl, "--prompt-data", fixture("data.jsonl")],
    ...["--agent-command", `${JSON.stringify(process.execPath)} ${fixture("echo-agent.mjs")}`],
    ...["--agent-writes-reward", "--n-samples-per-prompt", "2", "--rollout-batch-size", "4"],
    ...["--rollout-max-response-len", "16", "--output", rows, "--run-dir", join(dir, "run")],
    ...["--no-progress", "--log-level", "info"],
    ...["--agent-env", AGENT_HOME_ENV, `AGENT_SLEEP_MS=${sleepMs}`, `RESULT_DIR=${results}`],
    ...[`AGENT_BARRIER=${barrier}:16`],
  ];
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", TMPDIR: join(dir, "tmp") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = { text: "" };
  child.stdout?.on("data", (chunk) => {
    log.text += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    log.text += String(chunk);
  });
  const run = { dir, results, rows, child, log };
  runs.push(run);
  return run;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("two gateways on one host, default uid range", () => {
  it("should drop nothing, write every row of both runs and never share a uid between live agents", async () => {
    expect(process.getuid?.(), "needs root (CI runs as root): the uid pool is in force").toBe(0);
    const engine = await startRecordingEngine(() => ({ text: "4" }));
    try {
      const barrier = mkdtempSync(join(tmpdir(), "relax-two-gateways-barrier-"));
      chmodSync(barrier, 0o777);
      const a = startRun("a", engine.url, barrier, 2000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const b = startRun("b", engine.url, barrier, 0);
      const codes = await Promise.all([exited(a.child), exited(b.child)]);
      expect(codes[0], a.log.text.slice(-4000)).toBe(0);
      expect(codes[1], b.log.text.slice(-4000)).toBe(0);
      const agents: AgentResult[][] = [];
      for (const run of [a, b]) {
        expect(run.log.text).toMatch(/groups dropped\s+\|\s+0\s/);
        expect(run.log.text).not.toContain("agent_signal");
        const rows: TrainingRow[] = [];
        for await (const row of readTrainingRowsFile(run.rows)) rows.push(row);
        expect(rows).toHaveLength(8);
        const results = readdirSync(run.results).sort();
        expect(results).toEqual(rows.map((row) => `${row.session_id}.json`).sort());
        agents.push(
          results.map((name) => JSON.parse(readFileSync(join(run.results, name), "utf8")) as AgentResult),
        );
      }
      const [ofA, ofB] = agents as [AgentResult[], AgentResult[]];
      for (const agent of [...ofA, ...ofB]) {
        expect(agent.uid).toBeGreaterThanOrEqual(61000);
        expect(agent.uid).toBeLessThanOrEqual(61999);
      }
      // The runs really overlapped (else the test shows nothing), and no two live agents shared a uid.
      const overlapping = ofA.flatMap((x) =>
        ofB.filter((y) => x.startedAt < y.endedAt && y.startedAt < x.endedAt).map((y) => [x, y] as const),
      );
      expect(overlapping.length, "the two runs' agents did not run at the same time").toBeGreaterThan(0);
      for (const [x, y] of overlapping) expect(x.uid).not.toBe(y.uid);
      rmSync(barrier, { recursive: true, force: true });
    } finally {
      await engine.close();
    }
  }, 120_000);
});
