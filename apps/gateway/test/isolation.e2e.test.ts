import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { readTrainingRowsFile, type TrainingRow } from "@relax/export";
import { createLogger } from "@relax/rollout";
import type { RolloutConfigInput } from "@relax/runtime";
import { resolveConfig } from "@relax/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRollout } from "../src/run-rollout";
import { fixture, leftoverAgentProcesses, startRecordingEngine } from "./helpers";

// A hostile agent (fixtures/hostile-agent.mjs) hunts for sibling credentials, sibling files and the
// gateway's secrets, and uses whatever it finds; see docs/security.md. Run as root (like CI), so the
// default uid pool is in force.

interface Findings {
  label: string;
  own: string;
  uid: number;
  credentialsFound: Array<{ token: string; where: string }>;
  secretsFound: Array<{ name: string; value: string; where: string }>;
  siblingEntriesListed: string[];
  siblingFilesRead: string[];
  siblingOutputsWritten: string[];
  logFilesRead: string[];
  acceptedForeignRequests: string[];
  foreignRequestStatuses: Array<number | "held">;
  readableEnvironOwners: Array<{ pid: number; uid: number }>;
  ownEnvSecrets: string[];
  userName: string;
  home: string;
  runFilesRead: string[];
  engineReached: string[];
  listeningPorts: number[];
  healthAnswered: string[];
  signalled: number[];
  ptraceOpened: number[];
  controlAnswered: string[];
  hostFilesRead: string[];
  reward: number;
}

const REWARDS = [0, 0.5, 1];
const FAKE_SECRETS = {
  HF_TOKEN: "hf_FAKEfakeFAKEfake0123456789",
  OPENAI_API_KEY: "sk-FAKE-0123456789abcdef",
};

const quiet = {
  stdout: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
  logger: createLogger({ level: "silent" }),
};

describe("a hostile agent finds nothing and changes nothing (uid pool, bubblewrap)", () => {
  let engine: Awaited<ReturnType<typeof startRecordingEngine>>;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    expect(process.getuid?.(), "the isolation test needs root (CI runs as root)").toBe(0);
    engine = await startRecordingEngine(() => ({ text: "4" }));
    for (const [name, value] of Object.entries(FAKE_SECRETS)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterAll(async () => {
    await engine?.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  const run = async (flags: Partial<RolloutConfigInput>, { closedParent = false } = {}) => {
    const top = mkdtempSync(join(tmpdir(), "relax-hostile-"));
    chmodSync(top, 0o711);
    // closedParent: a fresh clone inside a `mktemp -d` (0700, root's) folder, as in /root/… of a container.
    const dir = closedParent ? join(mkdtempSync(join(top, "closed-")), "clone") : top;
    if (closedParent) mkdirSync(dir, { mode: 0o755 });
    // In the clone case the agent program lives in the clone, as `pnpm demo`'s does.
    const agent = closedParent ? join(dir, "hostile-agent.mjs") : fixture("hostile-agent.mjs");
    if (closedParent) copyFileSync(fixture("hostile-agent.mjs"), agent);
    const findingsDir = join(dir, "findings");
    mkdirSync(findingsDir);
    chmodSync(findingsDir, 0o777); // the agents report here, under their own uids
    const logDir = join(top, "logs");
    const runDir = join(top, "run");
    const rowsFile = join(top, "out", "rows.jsonl");
    const config = resolveConfig(
      {},
      {
        promptData: fixture("data.jsonl"),
        // The working directory holds the findings folder (bubblewrap binds it; /tmp is private there).
        agentCwd: dir,
        agentCommand: `${JSON.stringify(process.execPath)} ${agent}`,
        sglangUrl: [engine.url],
        nSamplesPerPrompt: 3,
        rolloutBatchSize: 2,
        agentWritesReward: true,
        sessionLogDir: logDir,
        agentEnv: [
          `FINDINGS_DIR=${findingsDir}`,
          `REWARD_BY_SLOT=${REWARDS.join(",")}`,
          `SESSION_LOG_DIR=${logDir}`,
          `ENGINE_URL=${engine.url}`,
          `RUN_FILES=${[rowsFile, join(runDir, "groups.ndjson"), runDir, fixture("data.jsonl"), logDir].join(",")}`,
        ],
        output: rowsFile,
        runDir,
        progress: false,
        logLevel: "silent",
        ...flags,
      },
    );
    // The control run may stall (hijacked sessions drop their Groups): only its findings matter there.
    const result = await runRollout(config, quiet).catch((error: unknown) => {
      if (flags.agentUidRange === "none") return undefined;
      throw error;
    });
    const rows: TrainingRow[] = [];
    if (result !== undefined) for await (const row of readTrainingRowsFile(rowsFile)) rows.push(row);
    const findings = readdirSync(findingsDir).map(
      (name) => JSON.parse(readFileSync(join(findingsDir, name), "utf8")) as Findings,
    );
    return { result, rows, findings, logDir };
  };

  const expectNothingFound = async (
    { result, rows, findings, logDir }: Awaited<ReturnType<typeof run>>,
    { otherRun = [] as Findings[] } = {},
  ) => {
    expect(result?.summary.groupsExported).toBe(2);
    expect(result?.summary.groupsDropped).toBe(0);
    expect(findings).toHaveLength(6);
    // Credentials of this run (each agent reports its own). Tokens the agent may find elsewhere on a
    // shared machine (other runs' leftovers) must be dead: refused with 404.
    const credentials = new Set(findings.map((found) => found.own));
    expect(credentials.size).toBe(6);
    // Another run's credentials (a second gateway on this host at the same time) are as hidden.
    for (const found of otherRun) credentials.add(found.own);
    expect(credentials.size).toBe(6 + otherRun.length);
    for (const found of findings) {
      expect(found.credentialsFound.filter((item) => credentials.has(item.token))).toEqual([]);
      expect(found.secretsFound).toEqual([]);
      expect(found.ownEnvSecrets).toEqual([]);
      expect(found.siblingEntriesListed).toEqual([]);
      expect(found.siblingFilesRead).toEqual([]);
      expect(found.siblingOutputsWritten).toEqual([]);
      expect(found.logFilesRead).toEqual([]);
      // Rows, journal, run dir, prompt data (reward labels) and log folder: all hidden.
      expect(found.runFilesRead).toEqual([]);
      // The engine (its URL given, as if found) and every other listening service: unreachable.
      expect(found.engineReached).toEqual([]);
      expect(found.healthAnswered).toEqual([]);
      // No process outside its own tree takes a signal or opens for tracing; the control API answers nothing.
      expect(found.signalled).toEqual([]);
      expect(found.ptraceOpened).toEqual([]);
      expect(found.controlAnswered).toEqual([]);
      // The pool uid resolves to a user (os.userInfo() works), whose home is its session folder.
      expect(found.userName).toBe(`relax${found.uid}`);
      expect(found.home).toMatch(new RegExp(`/${found.label.replaceAll(".", "\\.")}-[A-Za-z0-9]{6}$`));
      expect(found.acceptedForeignRequests).toEqual([]);
      // Every token it tried (its made-up guess last) was refused as an unknown session.
      expect(found.foreignRequestStatuses.at(-1)).toBe(404);
      expect(found.foreignRequestStatuses.filter((status) => status !== 404)).toEqual([]);
      // The only environments it could read are its own processes' (never the gateway's).
      for (const owner of found.readableEnvironOwners) expect(owner.uid).toBe(found.uid);
      expect(found.readableEnvironOwners.map((owner) => owner.pid)).not.toContain(process.pid);
      expect(found.uid).toBeGreaterThanOrEqual(61000);
      expect(found.uid).toBeLessThanOrEqual(61999);
    }
    // Each row has the reward its own agent wrote (nobody overwrote a sibling's output).
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      const slot = Number(/\.s(\d+)$/.exec(row.session_id)![1]);
      expect(row.reward).toBe(REWARDS[slot]);
      expect(findings.find((found) => found.label === row.session_id)?.reward).toBe(REWARDS[slot]);
    }
    // Logs: named by label, 0600, in a 0700 folder; no credential-looking name anywhere.
    expect(statSync(logDir).mode & 0o777).toBe(0o700);
    const logs = readdirSync(logDir).sort();
    expect(logs).toEqual(rows.map((row) => `${row.session_id}.log`).sort());
    for (const log of logs) expect(statSync(join(logDir, log)).mode & 0o777).toBe(0o600);
    // Nothing left: no agent process, no session root of this gateway.
    expect(leftoverAgentProcesses("g0-")).toEqual([]);
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith(`relax-sessions-${process.pid}-`))).toEqual(
      [],
    );
  };

  it("on the local backend with the default uid pool, two runs at once", async () => {
    const [first, second] = await Promise.all([run({}), run({})]);
    await expectNothingFound(first, { otherRun: second.findings });
    await expectNothingFound(second, { otherRun: first.findings });
    // The two runs' pools leased disjoint uids.
    const uids = [...first.findings, ...second.findings].map((found) => found.uid);
    expect(new Set(uids).size).toBe(12);
  }, 120_000);

  it("from a clone inside a 0700 folder (mktemp -d, /root/…) on the default backend", async () => {
    await expectNothingFound(await run({}, { closedParent: true }));
  }, 120_000);

  it("in the bubblewrap sandbox (with the uid pool), reaching only the gateway", async () => {
    const outcome = await run({ agentSandbox: "bwrap", agentNetwork: "gateway-only" });
    await expectNothingFound(outcome);
    // Inside its pid namespace an agent sees no process of another session at all.
    for (const found of outcome.findings) expect(found.readableEnvironOwners.length).toBeLessThan(10);
  }, 120_000);

  it("control: without a uid pool and with the whole environment, the same agent finds credentials and secrets", async () => {
    // Groups may be dropped here (hijacked sessions); only what the agents found matters.
    const { findings } = await run({ agentUidRange: "none", agentEnvInherit: "all", agentTimeout: 30 });
    expect(findings.length).toBeGreaterThan(0);
    const credentials = new Set(findings.map((found) => found.own));
    expect(findings.some((found) => found.credentialsFound.some((item) => credentials.has(item.token)))).toBe(
      true,
    );
    expect(findings.some((found) => found.acceptedForeignRequests.length > 0)).toBe(true);
    for (const found of findings) expect(found.ownEnvSecrets).toEqual(["HF_TOKEN", "OPENAI_API_KEY"]);
    // As the gateway's uid, with nothing hidden, it reads the run's files (the prompt labels at least).
    expect(findings.some((found) => found.runFilesRead.length > 0)).toBe(true);
    // On the host network it reaches the engine's control endpoints.
    expect(findings.some((found) => found.engineReached.length > 0)).toBe(true);
    // As root without a pool, it may signal and trace every process (the gateway's included).
    expect(findings.some((found) => found.signalled.includes(process.pid))).toBe(true);
    expect(findings.some((found) => found.ptraceOpened.includes(process.pid))).toBe(true);
  }, 120_000);
});
