/**
 * The hostile agent (fixtures/hostile-agent.mjs) against a NON-ROOT gateway on bubblewrap: two `relax
 * rollout` runs (the built CLI, `dist/cli.js`) of the same unprivileged user (`nobody`, uid 65534) at
 * once, over the stand-in engine (`relax-sglang-standin`'s library, a scripted SGLang-compatible engine,
 * not a model), `--agent-sandbox bwrap` with the default `gateway-only` network. Without root there is no
 * uid pool: every agent of both runs and both gateways share one uid, so only bubblewrap's namespaces and
 * hidden paths separate them. See docs/security.md ("Tests").
 *
 * The test process is root (CI runs as root): it starts each gateway in a private mount namespace where
 * the checkout is bound at a folder every user can enter (a checkout under /root, 0700, is not), then
 * drops to uid 65534 with `setpriv` (util-linux). It fails, never skips, when bubblewrap cannot run
 * unprivileged here (user namespaces off) or `setpriv`/`unshare` are missing.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { readTrainingRowsFile, type TrainingRow } from "@relax/export";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, startRecordingEngine } from "./helpers";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const USER = 65534; // `nobody` on Debian
const REWARDS = [0, 0.5, 1];
const FAKE_SECRETS = {
  HF_TOKEN: "hf_FAKEfakeFAKEfake0123456789",
  OPENAI_API_KEY: "sk-FAKE-0123456789abcdef",
};
const asUser = ["setpriv", `--reuid=${USER}`, `--regid=${USER}`, "--clear-groups"];

interface Findings {
  label: string;
  own: string;
  uid: number;
  credentialsFound: Array<{ token: string; where: string }>;
  secretsFound: unknown[];
  ownEnvSecrets: string[];
  siblingEntriesListed: string[];
  siblingFilesRead: string[];
  siblingOutputsWritten: string[];
  logFilesRead: string[];
  acceptedForeignRequests: string[];
  foreignRequestStatuses: Array<number | "held">;
  readableEnvironOwners: Array<{ pid: number; uid: number }>;
  userName: string;
  runFilesRead: string[];
  engineReached: string[];
  healthAnswered: string[];
  signalled: number[];
  ptraceOpened: number[];
  controlAnswered: string[];
  hostFilesRead: string[];
  reward: number;
}

/** Fails with what to change when bubblewrap cannot make a user namespace as uid {@link USER}. */
function assertUnprivilegedBwrap(): void {
  const probe = spawnSync(
    asUser[0]!,
    [
      ...asUser.slice(1),
      "bwrap",
      "--unshare-user",
      "--unshare-pid",
      "--unshare-net",
      "--ro-bind",
      "/",
      "/",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "true",
    ],
    { encoding: "utf8" },
  );
  if (probe.status !== 0) {
    throw new Error(
      `bubblewrap cannot run unprivileged here (as uid ${USER}): ${probe.error?.message ?? probe.stderr.trim()}; ` +
        "unprivileged user namespaces must be allowed (sysctl user.max_user_namespaces > 0; " +
        "kernel.unprivileged_userns_clone=1 where it exists; kernel.apparmor_restrict_unprivileged_userns=0 on " +
        "Ubuntu 24.04+), and setpriv (util-linux) and bwrap (bubblewrap) installed",
    );
  }
}

interface NonRootRun {
  name: string;
  top: string;
  findingsDir: string;
  rowsFile: string;
  hostFile: string;
  child: ChildProcess;
  log: { text: string };
}

/**
 * One non-root `relax rollout`: the checkout bound at `mount` in a private mount namespace, the gateway
 * as uid {@link USER} with `HOME` holding a token file (what a user's home holds: hub or cloud tokens).
 */
function startNonRootRun(name: string, engineUrl: string, mount: string): NonRootRun {
  const top = mkdtempSync(join(tmpdir(), `relax-hostile-nonroot-${name}-`));
  const inRepo = (path: string) => join(mount, relative(root, path));
  const findingsDir = join(top, "work", "findings");
  mkdirSync(findingsDir, { recursive: true });
  mkdirSync(join(top, "tmp"));
  mkdirSync(join(top, "home", ".cache", "huggingface"), { recursive: true });
  const hostFile = join(top, "home", ".cache", "huggingface", "token");
  writeFileSync(hostFile, FAKE_SECRETS.HF_TOKEN, { mode: 0o600 });
  for (const path of [top, join(top, "work"), findingsDir, join(top, "tmp"), join(top, "home")])
    chownSync(path, USER, USER);
  for (const path of [join(top, "home", ".cache"), join(top, "home", ".cache", "huggingface"), hostFile])
    chownSync(path, USER, USER);
  const logDir = join(top, "logs");
  const runDir = join(top, "run");
  const rowsFile = join(top, "out", "rows.jsonl");
  const prompts = inRepo(fixture("data.jsonl"));
  const gateway = [
    "env",
    "-i",
    `PATH=${process.env.PATH}`,
    `HOME=${join(top, "home")}`,
    `TMPDIR=${join(top, "tmp")}`,
    "NO_COLOR=1",
    ...Object.entries(FAKE_SECRETS).map(([key, value]) => `${key}=${value}`),
    process.execPath,
    inRepo(join(root, "apps/gateway/dist/cli.js")),
    "rollout",
    ...["--sglang-url", engineUrl, "--prompt-data", prompts],
    ...["--agent-command", `${JSON.stringify(process.execPath)} ${inRepo(fixture("hostile-agent.mjs"))}`],
    ...["--agent-writes-reward", "--n-samples-per-prompt", "3", "--rollout-batch-size", "2"],
    ...["--agent-sandbox", "bwrap", "--agent-cwd", join(top, "work")],
    ...["--output", rowsFile, "--run-dir", runDir, "--session-log-dir", logDir, "--no-progress"],
    ...["--log-level", "info", "--agent-env"],
    `FINDINGS_DIR=${findingsDir}`,
    `REWARD_BY_SLOT=${REWARDS.join(",")}`,
    `SESSION_LOG_DIR=${logDir}`,
    `ENGINE_URL=${engineUrl}`,
    `RUN_FILES=${[rowsFile, join(runDir, "groups.ndjson"), runDir, prompts, logDir].join(",")}`,
    `HOST_FILES=${hostFile}`,
  ];
  const script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"';
  const child = spawn(
    "unshare",
    [
      "--mount",
      "--propagation",
      "private",
      "--",
      "sh",
      "-c",
      script,
      "sh",
      root,
      mount,
      ...asUser,
      ...gateway,
    ],
    { cwd: top, stdio: ["ignore", "pipe", "pipe"] },
  );
  const log = { text: "" };
  child.stdout?.on("data", (chunk) => {
    log.text += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    log.text += String(chunk);
  });
  return { name, top, findingsDir, rowsFile, hostFile, child, log };
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("a hostile agent under a non-root gateway on bubblewrap (two runs of one user)", () => {
  let engine: Awaited<ReturnType<typeof startRecordingEngine>>;
  let mount: string;
  const runs: NonRootRun[] = [];
  beforeAll(async () => {
    expect(process.getuid?.(), "the test drops to uid 65534 from root (CI runs as root)").toBe(0);
    assertUnprivilegedBwrap();
    engine = await startRecordingEngine(() => ({ text: "4" }));
    // Outside /tmp (bubblewrap's private /tmp would hide the agent program), enterable by every user.
    mount = mkdtempSync("/var/tmp/relax-nonroot-checkout-");
  });
  afterAll(async () => {
    for (const run of runs) if (run.child.exitCode === null) run.child.kill("SIGKILL");
    await engine?.close();
    // rmdir, never a recursive remove: were the bind ever visible here, the checkout stays untouched.
    if (mount !== undefined) rmdirSync(mount);
    for (const run of runs) rmSync(run.top, { recursive: true, force: true });
  });

  it("finds no credential of either run, no secret, no run file, no engine and no process to signal or trace", async () => {
    runs.push(startNonRootRun("a", engine.url, mount), startNonRootRun("b", engine.url, mount));
    const codes = await Promise.all(runs.map((run) => exited(run.child)));
    for (const [index, run] of runs.entries()) expect(codes[index], run.log.text.slice(-4000)).toBe(0);
    const perRun = await Promise.all(
      runs.map(async (run) => {
        const rows: TrainingRow[] = [];
        for await (const row of readTrainingRowsFile(run.rowsFile)) rows.push(row);
        const findings = readdirSync(run.findingsDir).map(
          (name) => JSON.parse(readFileSync(join(run.findingsDir, name), "utf8")) as Findings,
        );
        return { run, rows, findings };
      }),
    );
    // Credentials of both runs (each agent reports its own).
    const credentials = new Set(perRun.flatMap(({ findings }) => findings.map((found) => found.own)));
    expect(credentials.size).toBe(12);
    for (const { run, rows, findings } of perRun) {
      // The banner says which isolation is in force; no "NOT isolated" warning.
      expect(run.log.text).toContain(
        "isolation bubblewrap (pid/user/ipc namespaces, read-only root, private /tmp; network: own gateway shard only), agents as uid 65534",
      );
      expect(run.log.text).not.toContain("NOT isolated");
      expect(findings).toHaveLength(6);
      for (const found of findings) {
        expect(found.uid).toBe(USER); // the gateway's own uid: no pool without root
        expect(found.userName).toBe("nobody");
        expect(found.credentialsFound.filter((item) => credentials.has(item.token))).toEqual([]);
        expect(found.secretsFound).toEqual([]);
        expect(found.ownEnvSecrets).toEqual([]);
        expect(found.siblingEntriesListed).toEqual([]);
        expect(found.siblingFilesRead).toEqual([]);
        expect(found.siblingOutputsWritten).toEqual([]);
        expect(found.logFilesRead).toEqual([]);
        expect(found.runFilesRead).toEqual([]);
        expect(found.engineReached).toEqual([]);
        expect(found.healthAnswered).toEqual([]);
        expect(found.acceptedForeignRequests).toEqual([]);
        expect(found.foreignRequestStatuses.filter((status) => status !== 404)).toEqual([]);
        expect(found.signalled).toEqual([]);
        expect(found.ptraceOpened).toEqual([]);
        expect(found.controlAnswered).toEqual([]);
        // Its pid namespace shows its own sandbox only: the sandbox's init and its own processes.
        expect(found.readableEnvironOwners.every((owner) => owner.uid === USER && owner.pid < 10)).toBe(true);
        // Known outcome (docs/security.md): the host's file system is read-only but visible, so a file the
        // gateway's user can read outside the hidden run paths (a token under its $HOME) is readable too.
        expect(found.hostFilesRead).toEqual([run.hostFile]);
      }
      expect(rows).toHaveLength(6);
      for (const row of rows) {
        const slot = Number(/\.s(\d+)$/.exec(row.session_id)![1]);
        expect(row.reward).toBe(REWARDS[slot]);
      }
    }
  }, 180_000);
});
