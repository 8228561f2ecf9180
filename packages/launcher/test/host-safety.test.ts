import { execFile, spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  BwrapBackend,
  LocalProcessBackend,
  preflightAgentCommand,
  runAgentTask,
  UidPool,
} from "../src/index";
import { agentCommandPaths } from "../src/sandbox/preflight-agent-command";
import { tempDir, waitFor } from "./helpers";

// Real uids, locks, mount namespaces and process groups: these tests need root (CI runs as root) and
// bubblewrap (`.ci/run` installs it); they fail, never skip, without them.
const execFileAsync = promisify(execFile);
const fixture = (name: string) => join(import.meta.dirname, "fixtures", name);

/** Runs one `uid-pool-run.mjs` "run" (its own process and pool) and returns its sessions. */
function startRun(ioRoot: string, sleepSeconds: number, leases: "on" | "off") {
  return execFileAsync(
    process.execPath,
    [fixture("uid-pool-run.mjs"), ioRoot, String(sleepSeconds), leases],
    {
      timeout: 60_000,
    },
  ).then(({ stdout }) =>
    stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { status: string; signal: string | null; uid: number | null }),
  );
}

async function sharedIoRoot(): Promise<string> {
  const ioRoot = await tempDir("lease-io");
  chmodSync(ioRoot, 0o711);
  return ioRoot;
}

describe("host-wide uid leases", () => {
  it("should give two independent runs on the default range disjoint uids and no cross kill", async () => {
    expect(process.getuid?.(), "needs root").toBe(0);
    const ioRoot = await sharedIoRoot();
    // Run B's agents end first: without leases, B's end-of-agent sweep of "its" uid kills A's agent.
    const [a, b] = await Promise.all([startRun(ioRoot, 4, "on"), startRun(ioRoot, 2.5, "on")]);
    expect([...a, ...b].map((session) => session.status)).toEqual(Array(16).fill("succeeded"));
    const uids = [...a, ...b].map((session) => session.uid);
    expect(uids.every((uid) => typeof uid === "number" && uid >= 61000 && uid <= 61999)).toBe(true);
    expect(new Set(uids).size).toBe(16); // all 16 ran at once: 0 shared uids
  }, 90_000);

  it("should show the failure without leases (control): shared uids and killed agents", async () => {
    const ioRoot = await sharedIoRoot();
    const [a, b] = await Promise.all([startRun(ioRoot, 4, "off"), startRun(ioRoot, 2.5, "off")]);
    const shared = a.filter((session) => b.some((other) => other.uid !== null && other.uid === session.uid));
    const killed = a.filter((session) => session.status !== "succeeded");
    expect(shared.length + killed.length).toBeGreaterThan(0);
    expect(killed.length).toBeGreaterThan(0);
  }, 90_000);

  it("should not reclaim a lease whose run still lives (only its lease helper died), nor kill its agent", async () => {
    const leaseDir = join(await tempDir("leases"), "uid-leases");
    mkdirSync(leaseDir, { mode: 0o700 });
    // Another run (a live process standing in for its gateway) tagged 62210; its agent still runs there,
    // but the lock is gone (its `relax-reaper --lease-holder` died).
    const otherGateway = spawn("/bin/sleep", ["300"], { detached: true, stdio: "ignore" });
    const agent = spawn("/bin/sleep", ["300"], { uid: 62210, gid: 62210, detached: true, stdio: "ignore" });
    await waitFor(() => otherGateway.pid !== undefined && agent.pid !== undefined);
    writeFileSync(join(leaseDir, "62210.lock"), `pid${otherGateway.pid}`, { mode: 0o600 });
    const stale: unknown[] = [];
    const pool = new UidPool({
      start: 62210,
      end: 62211,
      leaseDir,
      inUse: new Set(),
      onStaleLease: (event) => stale.push(event),
    });
    try {
      expect(await pool.acquire()).toEqual({ uid: 62211, gid: 62211 });
      await expect(pool.acquire()).rejects.toThrow(
        "agentUidRange: all ids of 62210-62211 are in use (1 leased by other runs on this host)",
      );
      expect(stale).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(agent.exitCode).toBeNull();
      expect(agent.signalCode).toBeNull(); // never touched
      expect(readFileSync(join(leaseDir, "62210.lock"), "utf8")).toBe(`pid${otherGateway.pid}`);
    } finally {
      agent.kill("SIGKILL");
      otherGateway.kill("SIGKILL");
      await pool.close();
    }
  });

  it("should reclaim a stale lease (holder dead) and kill what still runs under its uid, and skip a foreign uid", async () => {
    const leaseDir = join(await tempDir("leases"), "uid-leases");
    mkdirSync(leaseDir, { mode: 0o700 });
    // A dead holder's tag is still in the lease of 62201; a process it left runs under that uid.
    writeFileSync(join(leaseDir, "62201.lock"), "pid999999", { mode: 0o600 });
    const leftover = spawn("/bin/sleep", ["300"], {
      uid: 62201,
      gid: 62201,
      detached: true,
      stdio: "ignore",
    });
    // 62200 was never leased but a live process owns it: something else on the host uses it.
    const foreign = spawn("/bin/sleep", ["300"], { uid: 62200, gid: 62200, detached: true, stdio: "ignore" });
    await waitFor(() => leftover.pid !== undefined && foreign.pid !== undefined);
    const stale: unknown[] = [];
    const pool = new UidPool({
      start: 62200,
      end: 62201,
      leaseDir,
      inUse: new Set(),
      onStaleLease: (event) => stale.push(event),
    });
    try {
      expect(await pool.acquire()).toEqual({ uid: 62201, gid: 62201 });
      expect(stale).toEqual([{ uid: 62201, previousHolder: "pid999999", killed: 1 }]);
      await waitFor(() => leftover.exitCode !== null || leftover.signalCode !== null, {
        what: "leftover killed",
      });
      expect(leftover.signalCode).toBe("SIGKILL");
      expect(foreign.exitCode).toBeNull(); // never touched
      expect(readFileSync(join(leaseDir, "62201.lock"), "utf8")).toBe(`pid${process.pid}`);
      await expect(pool.acquire()).rejects.toThrow(
        "agentUidRange: all ids of 62200-62201 are in use; widen the range or run fewer agents at once",
      );
      await pool.release({ uid: 62201, gid: 62201 });
      expect(readFileSync(join(leaseDir, "62201.lock"), "utf8")).toBe(""); // a clean release
    } finally {
      foreign.kill("SIGKILL");
      await pool.close();
    }
  });
});

const identity = (label: string) => ({
  sessionId: `${label}-0123456789abcdef0123456789abcdef`,
  sessionLabel: label,
  groupId: "g",
  rolloutMode: "train" as const,
  baseUrl: "http://127.0.0.1:9/v1/",
});

/** Runs `script` and returns the metadata it wrote (`$RELAX_SESSION_IO_DIR/probe.json`). */
async function probe(backend: LocalProcessBackend, label: string, script: string, cwd: string) {
  const outcome = await runAgentTask({
    ...identity(label),
    command: `${script}\necho "{\\"metadata\\":$(cat "$RELAX_SESSION_IO_DIR/probe.json")}" > "$RELAX_OUTPUT_JSON"`,
    backend,
    cwd,
  });
  if (outcome.status !== "succeeded" || outcome.output.kind !== "implicit") {
    const log = await readFile(outcome.logPath, "utf8").catch(() => "");
    throw new Error(`probe ${label} failed: ${JSON.stringify(outcome)} ${log}`);
  }
  return outcome.output.metadata as Record<string, unknown>;
}

const whoAmI = `node -e 'const u=require("os").userInfo(); require("fs").writeFileSync(process.env.RELAX_SESSION_IO_DIR+"/probe.json", JSON.stringify({name:u.username,home:u.homedir,idName:require("child_process").execSync("id -un").toString().trim(),uid:u.uid,env:process.env.HOME}))'`;

describe("agent accounts and reachable folders", () => {
  it("should resolve every pool uid to a user (os.userInfo, id -un, $HOME) on the uid pool and bubblewrap", async () => {
    const ioRoot = await sharedIoRoot();
    const passwd = readFileSync("/etc/passwd", "utf8");
    const cwd = await tempDir("who-cwd");
    chmodSync(cwd, 0o755);
    for (const [name, Backend, start] of [
      ["local", LocalProcessBackend, 62140],
      ["bwrap", BwrapBackend, 62150],
    ] as const) {
      const backend = new Backend({ ioRoot, uidPool: new UidPool({ start, end: start + 3 }) });
      const seen = await probe(backend, `who-${name}`, whoAmI, cwd);
      expect(seen.uid).toBeGreaterThanOrEqual(start);
      expect(seen.name).toBe(`relax${seen.uid}`);
      expect(seen.idName).toBe(`relax${seen.uid}`);
      expect(seen.home).toBe(seen.env);
      expect(String(seen.home)).toMatch(new RegExp(`/who-${name}-[A-Za-z0-9]{6}$`));
      await backend.dispose();
    }
    expect(readFileSync("/etc/passwd", "utf8")).toBe(passwd); // the host's file is untouched
  }, 30_000);

  it("should let the agent uid reach an --agent-cwd inside a 0700 folder, and nothing else of that folder", async () => {
    const ioRoot = await sharedIoRoot();
    const closed = await tempDir("closed"); // mktemp -d: 0700, root's
    expect(readFileSync("/proc/self/status", "utf8")).toMatch(/Uid:\s+0\s/);
    const repo = join(closed, "repo", "app");
    mkdirSync(repo, { recursive: true, mode: 0o755 });
    chmodSync(join(closed, "repo"), 0o755);
    writeFileSync(join(repo, "agent.txt"), "agent program\n", { mode: 0o644 });
    writeFileSync(join(closed, "secret.txt"), "root only\n", { mode: 0o644 });
    const backend = new LocalProcessBackend({ ioRoot, uidPool: new UidPool({ start: 62160, end: 62163 }) });
    const seen = await probe(
      backend,
      "closed",
      `printf '{"pwd":"%s","program":"%s","absolute":"%s","list":"%s","secret":"%s"}' "$(pwd)" "$(cat agent.txt)" \
        "$(cat ${repo}/agent.txt)" "$(ls ${closed} 2>&1 | tr -d '"' | head -c 80)" "$(cat ${closed}/secret.txt 2>&1 | tr -d '"' | head -c 80)" \
        > "$RELAX_SESSION_IO_DIR/probe.json"`,
      repo,
    );
    expect(seen).toEqual({
      pwd: repo,
      program: "agent program",
      absolute: "agent program",
      list: `ls: cannot open directory '${closed}': Permission denied`,
      secret: `cat: ${closed}/secret.txt: No such file or directory`,
    });
    await backend.dispose();
  }, 30_000);
});

describe("process-group SIGKILL of the launcher", () => {
  it("should leave no agent process behind (the reapers are outside the launcher's group)", async () => {
    const tag = `relaxpg${process.pid}x${Date.now() % 100000}`;
    const ioRoot = await sharedIoRoot();
    // A launcher in its own process group starts 3 agents that each leave a setsid'd daemon behind.
    const script = `
      import { LocalProcessBackend, launchAgentSession } from "../../dist/index.js";
      const backend = new LocalProcessBackend({ ioRoot: ${JSON.stringify(ioRoot)},
        baseEnv: { ...process.env, HOME: ${JSON.stringify(ioRoot)} } }); // no developer ~/.profile
      for (let i = 0; i < 3; i++) {
        const session = await launchAgentSession({ sessionId: "c${"0".repeat(30)}" + i, sessionLabel: "pg" + i,
          groupId: "g", rolloutMode: "train", baseUrl: "http://127.0.0.1:9/v1/", cwd: "/", graceMs: 200,
          command: "setsid bash -c 'exec -a ${tag}-daemon sleep 300' & exec -a ${tag}-agent sleep 300" });
        session.activate();
      }
      console.log("ready");
      setInterval(() => {}, 1 << 30);`;
    const launcher = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: join(import.meta.dirname, "fixtures"),
      detached: true,
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) => launcher.stdout!.once("data", () => resolve()));
    const count = async () => {
      let found = 0;
      for (const name of await readdir("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
        if (cmdline.startsWith(tag)) found++;
      }
      return found;
    };
    await waitFor(async () => (await count()) === 6, { what: "6 agent processes", timeoutMs: 10_000 });
    process.kill(-launcher.pid!, "SIGKILL"); // what `timeout -s KILL` does
    await waitFor(async () => (await count()) === 0, { what: "no agent process left", timeoutMs: 10_000 });
    expect(await count()).toBe(0);
  }, 30_000);
});

describe("pre-flight of the agent command", () => {
  it("should list the program, the files named and each script's interpreter", async () => {
    const dir = await tempDir("paths");
    writeFileSync(join(dir, "run.sh"), "#!/bin/bash\necho hi\n", { mode: 0o755 });
    writeFileSync(join(dir, "agent.mjs"), "", { mode: 0o644 });
    expect(
      agentCommandPaths(`bash run.sh --flag "${dir}/agent.mjs" $HOME x=1 missing.js`, {
        cwd: dir,
        path: "/usr/bin:/bin",
      }),
    ).toEqual(
      [
        "/usr/bin/bash",
        realpathSync("/usr/bin/bash"),
        join(dir, "run.sh"),
        "/bin/bash",
        join(dir, "agent.mjs"),
      ].filter((path, index, all) => all.indexOf(path) === index),
    );
  });

  it("should pass a command under an exposed --agent-cwd and name the closed folder of one outside it", async () => {
    const ioRoot = await sharedIoRoot();
    const closed = await tempDir("preflight"); // 0700, root's
    const app = join(closed, "app");
    mkdirSync(app, { mode: 0o755 });
    chmodSync(app, 0o755);
    writeFileSync(join(app, "agent.mjs"), "", { mode: 0o644 });
    const other = await tempDir("preflight-other");
    writeFileSync(join(other, "tool.mjs"), "", { mode: 0o644 });
    const backend = new LocalProcessBackend({ ioRoot, uidPool: new UidPool({ start: 62170, end: 62171 }) });
    expect(await preflightAgentCommand({ backend, command: "node agent.mjs", cwd: app })).toBeNull();
    const line = await preflightAgentCommand({
      backend,
      command: `node agent.mjs ${other}/tool.mjs`,
      cwd: app,
    });
    expect(line).toMatch(
      new RegExp(
        `^agents \\(uid 6217[01], local backend\\) cannot reach ${other}/tool.mjs, which the agent command needs: ${other} \\(mode 0700\\) cannot be entered by other users; fix: chmod o\\+x ${other} `,
      ),
    );
    await backend.dispose();
  }, 30_000);
});

describe("the run's own files", () => {
  it("should hide the hidden paths (a folder empty, a file empty) from agents on the uid pool and bubblewrap", async () => {
    const ioRoot = await sharedIoRoot();
    const run = await tempDir("run-files");
    chmodSync(run, 0o755);
    const cwd = join(run, "agent");
    const runDir = join(run, "run-dir");
    mkdirSync(cwd, { mode: 0o755 });
    mkdirSync(runDir, { mode: 0o755 });
    writeFileSync(join(runDir, "groups.ndjson"), "journal\n", { mode: 0o644 });
    // A prompt file inside the agent's working directory: hidden as a file, the folder stays.
    writeFileSync(join(cwd, "prompts.jsonl"), '{"label":42}\n', { mode: 0o644 });
    writeFileSync(join(cwd, "agent.txt"), "program\n", { mode: 0o644 });
    const hiddenPaths = [runDir, join(cwd, "prompts.jsonl"), cwd /* holds the cwd: kept */];
    for (const [name, Backend, start] of [
      ["local", LocalProcessBackend, 62180],
      ["bwrap", BwrapBackend, 62190],
    ] as const) {
      const backend = new Backend({ ioRoot, hiddenPaths, uidPool: new UidPool({ start, end: start + 1 }) });
      const seen = await probe(
        backend,
        `hide-${name}`,
        `printf '{"journal":"%s","list":"%s","prompts":"%s","program":"%s"}' "$(cat ${runDir}/groups.ndjson 2>&1 | tr -d '"')" \
          "$(ls -A ${runDir})" "$(cat prompts.jsonl | tr -d '"')" "$(cat agent.txt)" > "$RELAX_SESSION_IO_DIR/probe.json"`,
        cwd,
      );
      expect(seen).toEqual({
        journal: `cat: ${runDir}/groups.ndjson: No such file or directory`,
        list: "",
        prompts: "",
        program: "program",
      });
      await backend.dispose();
    }
    expect(readFileSync(join(runDir, "groups.ndjson"), "utf8")).toBe("journal\n");
  }, 30_000);
});

describe("network of local agents on the uid pool", () => {
  it("should let a gateway-only agent reach its gateway and the allowed service, not the engine nor /proc/net/tcp", async () => {
    const { createServer } = await import("node:http");
    const listen = async (body: string) => {
      const server = createServer((_request, response) => response.end(body));
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
      return { server, port: (server.address() as { port: number }).port };
    };
    const gateway = await listen("gateway");
    const engine = await listen("engine");
    const retriever = await listen("retriever");
    const ioRoot = await sharedIoRoot();
    const backend = new LocalProcessBackend({
      ioRoot,
      network: "gateway-only",
      allow: [{ host: "127.0.0.1", port: retriever.port }],
      uidPool: new UidPool({ start: 62210, end: 62211 }),
    });
    try {
      const outcome = await runAgentTask({
        ...identity("net"),
        baseUrl: `http://127.0.0.1:${gateway.port}/v1/`,
        cwd: "/",
        backend,
        command: `
          get() { node -e 'fetch(process.argv[1]).then(r=>r.text()).then(t=>console.log(t),()=>console.log("refused"))' "$1"; }
          printf '{"metadata":{"base":"%s","gateway":"%s","engine":"%s","retriever":"%s","tcp":%s}}' "$RELAX_BASE_URL" \
            "$(get "$RELAX_BASE_URL")" "$(get http://127.0.0.1:${engine.port}/)" "$(get http://127.0.0.1:${retriever.port}/)" \
            "$(grep -ci ":$(printf %04X ${engine.port}) " /proc/net/tcp)" > "$RELAX_OUTPUT_JSON"`,
      });
      expect(outcome.status).toBe("succeeded");
      expect(
        outcome.status === "succeeded" && outcome.output.kind === "implicit" && outcome.output.metadata,
      ).toEqual({
        base: `http://127.0.0.1:${gateway.port}/v1/`,
        gateway: "gateway",
        engine: "refused",
        retriever: "retriever",
        tcp: 0, // the engine's socket is not in this namespace's /proc/net/tcp (it cannot be found)
      });
      expect(outcome.leftoverProcesses).toBe(0); // the relay ends with the agent
    } finally {
      await backend.dispose();
      for (const { server } of [gateway, engine, retriever]) server.close();
    }
  }, 30_000);
});

describe("a supervisor that dies", () => {
  it("should not report a made-up SIGKILL of the agent, and say the supervisor was lost", async () => {
    const { launchAgentSession } = await import("../src/index");
    const ioRoot = await sharedIoRoot();
    const backend = new LocalProcessBackend({ ioRoot, baseEnv: { ...process.env, HOME: ioRoot } });
    const session = await launchAgentSession({
      ...identity("lost"),
      cwd: "/",
      backend,
      command: "exec sleep 300",
    });
    session.activate();
    // The reaper is the agent's parent.
    const stat = readFileSync(`/proc/${session.pid}/stat`, "utf8");
    const reaper = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    process.kill(reaper, "SIGKILL");
    const outcome = await session.done;
    expect(outcome).toMatchObject({ status: "failed", exitCode: null, signal: null, reaped: false });
    expect(outcome.status === "failed" && outcome.error.message).toContain(
      "ended unobserved: its supervisor relax-reaper ended (SIGKILL) before reporting how the agent ended",
    );
    await backend.dispose();
  }, 30_000);
});
