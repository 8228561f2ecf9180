import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AgentConfigError,
  BwrapBackend,
  LocalProcessBackend,
  parseUidRange,
  runAgentTask,
  UidPool,
} from "../src/index";
import { sweepStaleSessionRoots } from "../src/internal/index";
import { shellQuote, tempDir } from "./helpers";

// Real uids and namespaces: these tests need root (CI runs as root) and bubblewrap (`.ci/run` installs it).
const identity = (label: string) => ({
  sessionId: `${label}-0123456789abcdef0123456789abcdef`,
  sessionLabel: label,
  groupId: "g",
  rolloutMode: "train" as const,
  baseUrl: "http://127.0.0.1:9/v1/",
});

/** Runs `script` (bash) as an agent and returns its JSON output's metadata. */
async function probe(backend: LocalProcessBackend, label: string, script: string, cwd?: string) {
  const outcome = await runAgentTask({
    ...identity(label),
    command: `${script}\necho "{\\"metadata\\":$(cat "$RELAX_SESSION_IO_DIR/probe.json")}" > "$RELAX_OUTPUT_JSON"`,
    backend,
    keepIoDir: true,
    ...(cwd !== undefined ? { cwd } : {}),
  });
  if (outcome.status !== "succeeded" || outcome.output.kind !== "implicit") {
    throw new Error(`probe ${label} failed: ${JSON.stringify(outcome)}`);
  }
  return { outcome, seen: outcome.output.metadata as Record<string, unknown> };
}

describe("uid pool", () => {
  it("should parse --agent-uid-range and refuse malformed or privileged ranges", () => {
    expect(parseUidRange("61000-61999")).toEqual({ start: 61000, end: 61999 });
    expect(() => parseUidRange("0-10")).toThrow(
      'agentUidRange: expected START-END with 1000 <= START <= END < 2147483647, got "0-10"',
    );
    expect(() => parseUidRange("62000-61000")).toThrow(AgentConfigError);
  });

  it("should skip ids in use, reuse released ids last, and say when the range is exhausted", async () => {
    const pool = new UidPool({ start: 100, end: 103, inUse: new Set([101]), leaseDir: false });
    expect(pool.available).toBe(3);
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect([a, b]).toEqual([
      { uid: 100, gid: 100 },
      { uid: 102, gid: 102 },
    ]);
    await pool.release(a);
    expect(await pool.acquire()).toEqual({ uid: 103, gid: 103 });
    expect(await pool.acquire()).toEqual({ uid: 100, gid: 100 });
    await expect(pool.acquire()).rejects.toThrow(
      "agentUidRange: all ids of 100-103 are in use; widen the range or run fewer agents at once",
    );
  });

  it("should run concurrent agents under distinct uids, in 0700 folders of their own, and take the folder back", async () => {
    expect(process.getuid?.(), "needs root").toBe(0);
    const ioRoot = await tempDir("uid-io");
    chmodSync(ioRoot, 0o711); // agents under other uids pass through to their folders
    const backend = new LocalProcessBackend({
      ioRoot,
      uidPool: new UidPool({ start: 62100, end: 62109 }),
    });
    // Each agent leaves a daemon behind that escaped its process group and cleared its environment:
    // it runs under the agent's uid, so it is killed before the folder is taken back.
    const script = `
      setsid env -i /bin/sleep 300 < /dev/null > /dev/null 2>&1 &
      printf '{"uid":%s,"gid":%s,"home":"%s","tmp":"%s","mode":"%s","owner":%s}' "$(id -u)" "$(id -g)" "$HOME" "$TMPDIR" \
        "$(stat -c %a "$RELAX_SESSION_IO_DIR")" "$(stat -c %u "$RELAX_SESSION_IO_DIR")" > "$RELAX_SESSION_IO_DIR/probe.json"`;
    const [first, second] = await Promise.all([
      probe(backend, "uid-a", script),
      probe(backend, "uid-b", script),
    ]);
    const uids = [first.seen.uid, second.seen.uid].sort();
    expect(uids).toEqual([62100, 62101]);
    for (const { seen, outcome } of [first, second]) {
      expect(seen.gid).toBe(seen.uid);
      expect(seen.owner).toBe(seen.uid);
      expect(seen.mode).toBe("700");
      const ioDir = outcome.logPath.replace(/\.log$/, "");
      expect(seen.home).toBe(ioDir);
      expect(seen.tmp).toBe(ioDir);
      // After exit: the launcher's again, and nothing of the agent's uid runs.
      expect(statSync(ioDir).uid).toBe(0);
      expect(statSync(ioDir).mode & 0o777).toBe(0o700);
      expect(statSync(outcome.logPath).uid).toBe(0);
      expect(statSync(outcome.logPath).mode & 0o777).toBe(0o600);
    }
    const owners = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map((name) => {
        try {
          return statSync(`/proc/${name}`).uid;
        } catch {
          return -1;
        }
      });
    expect(owners.filter((uid) => uid === 62100 || uid === 62101)).toEqual([]);
    // The session root lets agents pass (0711) but not list; names carry labels only.
    const [root] = readdirSync(ioRoot);
    expect(root).toMatch(/^relax-sessions-\d+-[0-9a-f]{8}$/);
    expect(statSync(join(ioRoot, root!)).mode & 0o777).toBe(0o711);
    expect(
      readdirSync(join(ioRoot, root!))
        .map((name) => name.replace(/-[A-Za-z0-9]{6}(\.log)?$/, "$1"))
        .sort(),
    ).toEqual(["uid-a", "uid-a.log", "uid-b", "uid-b.log"]);
    // The sessions kept their folders (keepIoDir): dispose keeps the root too, marked so no sweep takes it.
    await backend.dispose();
    expect(readdirSync(ioRoot)).toEqual([root]);
    expect(readdirSync(join(ioRoot, root!))).toContain(".relax-kept");
  });

  it("should refuse an output that is a symbolic link (the launcher reads with its own privileges)", async () => {
    const backend = new LocalProcessBackend({ ioRoot: await tempDir("link-io") });
    const outcome = await runAgentTask({
      ...identity("link"),
      command: `ln -s /etc/shadow "$RELAX_OUTPUT_JSON"`,
      backend,
    });
    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") return;
    expect(outcome.error.kind).toBe("invalid-output");
    expect(outcome.error.message).toMatch(
      /^Agent session link produced invalid output: invalid session output: \/.*\/link-[A-Za-z0-9]{6}\/session_output\.json is a symbolic link\.$/,
    );
  });
});

describe("leftover session folders", () => {
  it("should sweep only relax-sessions-<pid>-* folders whose launcher is gone", async () => {
    const ioRoot = await tempDir("sweep");
    const dead = join(ioRoot, "relax-sessions-999999999-deadbeef");
    const alive = join(ioRoot, "relax-sessions-1-aaaaaaaa");
    const mine = join(ioRoot, `relax-sessions-${process.pid}-bbbbbbbb`);
    const other = join(ioRoot, "relax-session-999999999-x");
    for (const dir of [dead, alive, mine, other]) mkdirSync(join(dir, "inner"), { recursive: true });
    writeFileSync(join(dead, "inner", "session_input.json"), "{}");
    // A root whose folders a run kept on purpose (--keep-session-dirs) is never swept.
    const kept = join(ioRoot, "relax-sessions-999999998-cafebabe");
    mkdirSync(join(kept, "inner"), { recursive: true });
    writeFileSync(join(kept, ".relax-kept"), "");
    expect(await sweepStaleSessionRoots(ioRoot)).toEqual([dead]);
    expect([dead, alive, mine, other, kept].map((dir) => existsSync(dir))).toEqual([
      false,
      true,
      true,
      true,
      true,
    ]);
  });

  it("should keep the session root, marked, when a sandbox kept its folder", async () => {
    const ioRoot = await tempDir("keep");
    const backend = new LocalProcessBackend({ ioRoot });
    const keptBox = await backend.create({ sessionLabel: "g0-0-aaaaaa.s0" });
    const goneBox = await backend.create({ sessionLabel: "g0-0-aaaaaa.s1" });
    await keptBox.destroy({ keepIoDir: true });
    await goneBox.destroy();
    await backend.dispose();
    expect(existsSync(keptBox.ioDir)).toBe(true);
    expect(existsSync(goneBox.ioDir)).toBe(false);
    expect(existsSync(join(dirname(keptBox.ioDir), ".relax-kept"))).toBe(true);
    expect(await sweepStaleSessionRoots(ioRoot)).toEqual([]);
  });
});

describe("bubblewrap backend", () => {
  it("should give the agent a private /tmp, a read-only root, its own pid namespace, and writable session folder and cwd", async () => {
    const hostMarker = join(tmpdir(), `relax-bwrap-host-${process.pid}`);
    writeFileSync(hostMarker, "host");
    const cwd = await tempDir("bwrap-cwd");
    chmodSync(cwd, 0o755);
    const ioRoot = await tempDir("bwrap-io");
    chmodSync(ioRoot, 0o711);
    const backend = new BwrapBackend({
      ioRoot,
      uidPool: new UidPool({ start: 62110, end: 62119 }),
    });
    backend.checkAvailable();
    const { seen } = await probe(
      backend,
      "bwrap-a",
      `
      host=no; [ -e ${shellQuote(hostMarker)} ] && host=yes
      root=no; touch /usr/relax-bwrap-probe 2>/dev/null && root=yes
      cwdw=no; touch ./written-by-agent 2>/dev/null && cwdw=yes
      siblings=$(ls "$(dirname "$RELAX_SESSION_IO_DIR")" | wc -l)
      procs=$(ls /proc | grep -c '^[0-9]')
      printf '{"host":"%s","root":"%s","cwd":"%s","siblings":%s,"procs":%s,"uid":%s,"home":"%s"}' \
        "$host" "$root" "$cwdw" "$siblings" "$procs" "$(id -u)" "$HOME" > "$RELAX_SESSION_IO_DIR/probe.json"`,
      cwd,
    );
    expect(seen).toMatchObject({ host: "no", root: "no", siblings: 1, uid: 62110 });
    // The agent's uid cannot write the root-owned cwd even though bwrap binds it writable.
    expect(seen.cwd).toBe("no");
    expect(seen.procs as number).toBeLessThan(8);
    expect(String(seen.home)).toMatch(/\/bwrap-a-[A-Za-z0-9]{6}$/);
  });

  it("should cut the network with --agent-network none (a host port is unreachable)", async () => {
    const server = createServer((socket) => socket.end("hello\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const script = (name: string) => `
        got=$(timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3' 2>/dev/null || echo unreachable)
        printf '{"got":"%s"}' "$got" > "$RELAX_SESSION_IO_DIR/probe.json" # ${name}`;
      const none = new BwrapBackend({ ioRoot: await tempDir("bwrap-net"), network: "none" });
      const host = new BwrapBackend({ ioRoot: await tempDir("bwrap-net"), network: "host" });
      expect((await probe(none, "net-none", script("none"))).seen).toEqual({ got: "unreachable" });
      expect((await probe(host, "net-host", script("host"))).seen).toEqual({ got: "hello" });
    } finally {
      server.close();
    }
  });

  it("should let an agent reach only the gateway with --agent-network gateway-only (through the relay)", async () => {
    const listen = async (reply: string) => {
      const server = createServer((socket) => socket.end(reply));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return { server, port: (server.address() as { port: number }).port };
    };
    const gateway = await listen("gateway\n");
    const other = await listen("other\n");
    try {
      const ioRoot = await tempDir("bwrap-gw");
      chmodSync(ioRoot, 0o711);
      const backend = new BwrapBackend({
        ioRoot,
        network: "gateway-only",
        uidPool: new UidPool({ start: 62130, end: 62139 }),
      });
      const read = (port: string) =>
        `$(timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3' 2>/dev/null || echo unreachable)`;
      const outcome = await runAgentTask({
        ...identity("net-gw"),
        baseUrl: `http://127.0.0.1:${gateway.port}/agentic_api/`,
        command: `printf '{"metadata":{"base":"%s","gateway":"%s","other":"%s"}}' "$RELAX_BASE_URL" "${read(String(gateway.port))}" "${read(String(other.port))}" > "$RELAX_OUTPUT_JSON"`,
        backend,
      });
      if (outcome.status === "failed") throw outcome.error;
      expect(outcome.status).toBe("succeeded");
      if (outcome.status !== "succeeded" || outcome.output.kind !== "implicit") return;
      expect(outcome.output.metadata).toEqual({
        base: `http://127.0.0.1:${gateway.port}/agentic_api/`,
        gateway: "gateway",
        other: "unreachable",
      });
      // The relay's socket is gone with the session.
      expect(readdirSync(ioRoot).flatMap((root) => readdirSync(join(ioRoot, root)))).toEqual([]);
    } finally {
      gateway.server.close();
      other.server.close();
    }
  });

  it("should move the relay off a privileged gateway port (the sandbox cannot bind below 1024)", async () => {
    const ioRoot = await tempDir("bwrap-gw80");
    chmodSync(ioRoot, 0o711);
    const backend = new BwrapBackend({ ioRoot, network: "gateway-only" });
    const outcome = await runAgentTask({
      ...identity("net-80"),
      baseUrl: "http://127.0.0.1:80/agentic_api/",
      // The relay is listening (its ready file exists) before the agent starts.
      command: `ready=no; [ -e /tmp/.relax-relay-ready ] && ready=yes; printf '{"metadata":{"base":"%s","ready":"%s"}}' "$RELAX_BASE_URL" "$ready" > "$RELAX_OUTPUT_JSON"`,
      backend,
    });
    if (outcome.status !== "succeeded" || outcome.output.kind !== "implicit")
      throw new Error(JSON.stringify(outcome));
    expect(outcome.output.metadata).toEqual({ base: "http://127.0.0.1:18000/agentic_api/", ready: "yes" });
  });

  it("should say when bubblewrap is missing", () => {
    expect(() => new BwrapBackend({ bwrapPath: "/nonexistent/bwrap" }).checkAvailable()).toThrow(
      "sandbox: bubblewrap cannot run: /nonexistent/bwrap not found (apt-get install bubblewrap)",
    );
  });
});

describe("uid pool preconditions", () => {
  it("should refuse a session root that other uids cannot reach, naming the folder", async () => {
    const ioRoot = await tempDir("closed"); // 0700
    const backend = new LocalProcessBackend({ ioRoot, uidPool: new UidPool({ start: 62120, end: 62121 }) });
    await expect(backend.create({ sessionLabel: "closed" })).rejects.toThrow(
      `ioRoot: ${ioRoot} (mode 700) cannot be entered by other users, so agents under their own uids cannot reach their session folders; give it o+x or use another TMPDIR`,
    );
  });
});
