import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { type LocalProcessBackend, launchAgentSession } from "../src/index";
import { resolveReaperBinary } from "../src/process/resolve-reaper-binary";
import {
  createMarkerKit,
  createTestBackend,
  type MarkerKit,
  ps,
  shellQuote,
  tempDir,
  waitFor,
} from "./helpers";

let kit: MarkerKit;
let backend: LocalProcessBackend;

beforeAll(async () => {
  kit = await createMarkerKit();
  ({ backend } = await createTestBackend());
});

const identity = (sessionId: string) => ({
  sessionId,
  sessionLabel: sessionId,
  groupId: "g",
  rolloutMode: "train" as const,
  baseUrl: "http://h/v1",
});

/**
 * An agent whose tree escapes every naive cleanup: a double-forked + setsid grandchild, a double-forked +
 * setsid grandchild that ignores SIGTERM, and an in-group child that ignores SIGTERM. All run marked
 * binaries, so `ps` finds them (zombies included) wherever they were re-parented.
 */
function nastyTree(ready: string, tail: string): string {
  const script = [
    `( setsid ${shellQuote(kit.sleep)} 1000 & )`,
    `( ( trap "" TERM; exec setsid ${shellQuote(kit.sleep)} 1001 ) & )`,
    `( trap "" TERM; exec ${shellQuote(kit.sleep)} 1002 ) &`,
    `touch ${shellQuote(ready)}`,
    tail,
  ].join("\n");
  return `${shellQuote(kit.bash)} -c ${shellQuote(script)}`;
}

describe("termination and reaping", () => {
  it("should kill and reap a double-forked setsid grandchild and SIGTERM-ignoring children on terminate", async () => {
    const ready = join(await tempDir("ready"), "ready");
    const handle = await launchAgentSession({
      ...identity("sess-nasty"),
      command: nastyTree(ready, `${shellQuote(kit.sleep)} 1003`),
      graceMs: 300,
      backend,
    });
    await waitFor(() => existsSync(ready), { what: "the agent tree" });
    // three escapees and the foreground sleep (bash execs the script's last command), all running
    const live = async () => (await kit.processes()).filter((row) => !row.stat.startsWith("Z"));
    const before = await waitFor(async () => ((await live()).length >= 4 ? live() : null), {
      what: "4 processes",
    });
    expect(new Set(before.map((row) => row.ppid)).size).toBeGreaterThan(1); // re-parented / spread out

    const outcome = await handle.terminate("group dropped");
    expect(outcome).toMatchObject({ status: "terminated", reason: "group dropped", reaped: true });
    expect(handle.state).toBe("exited");
    expect(await kit.processes()).toEqual([]); // nothing left, not even a zombie
  });

  it("should clean up daemons an agent leaves behind when it exits by itself", async () => {
    const ready = join(await tempDir("ready"), "ready");
    const outcome = await (
      await launchAgentSession({
        ...identity("sess-daemons"),
        command: nastyTree(ready, "exit 0"),
        graceMs: 300,
        backend,
        active: true,
      })
    ).done;
    expect(outcome.status).toBe("succeeded");
    expect(outcome.exitCode).toBe(0);
    expect(outcome.leftoverProcesses).toBe(3);
    expect(outcome.reaped).toBe(true);
    expect(await kit.processes()).toEqual([]);
  });

  it("should SIGKILL an agent that ignores SIGTERM once the grace period ends", async () => {
    const ready = join(await tempDir("ready"), "ready");
    const handle = await launchAgentSession({
      ...identity("sess-ignore-term"),
      command: `trap "" TERM; touch ${shellQuote(ready)}; exec ${shellQuote(kit.sleep)} 1000`,
      graceMs: 200,
      backend,
    });
    await waitFor(() => existsSync(ready));
    const outcome = await handle.terminate("stop");
    expect(outcome).toMatchObject({ status: "terminated", exitCode: null, signal: "SIGKILL" });
    expect(await kit.processes()).toEqual([]);
  });

  it("should skip the grace period when terminating with force", async () => {
    const ready = join(await tempDir("ready"), "ready");
    const handle = await launchAgentSession({
      ...identity("sess-force"),
      command: `trap "" TERM; touch ${shellQuote(ready)}; exec ${shellQuote(kit.sleep)} 1000`,
      graceMs: 600_000, // a graceful stop would outlive the test timeout
      backend,
    });
    await waitFor(() => existsSync(ready));
    const outcome = await handle.terminate("shutdown", { force: true });
    expect(outcome).toMatchObject({ status: "terminated", signal: "SIGKILL" });
    expect(await kit.processes()).toEqual([]);
  });

  it("should report a signal Relax did not send as an agent failure", async () => {
    const handle = await launchAgentSession({
      ...identity("sess-oom"),
      command: `exec ${shellQuote(kit.sleep)} 1000`,
      backend,
    });
    await waitFor(async () => (await kit.processes()).some((row) => row.pid === handle.pid));
    process.kill(handle.pid, "SIGKILL"); // e.g. the OOM killer
    const outcome = await handle.done;
    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") return;
    expect(outcome.error).toMatchObject({ kind: "signal", signal: "SIGKILL", exitCode: null });
    expect(outcome.error.message).toBe(
      "Agent session sess-oom was killed by SIGKILL, which this gateway did not send (the kernel's OOM killer sends it: see `dmesg`; docs/security.md).",
    );
  });

  it("should terminate the session when its abort signal fires", async () => {
    const controller = new AbortController();
    const handle = await launchAgentSession({
      ...identity("sess-abort"),
      command: `exec ${shellQuote(kit.sleep)} 1000`,
      backend,
      signal: controller.signal,
    });
    controller.abort("step closed");
    const outcome = await handle.done;
    expect(outcome).toMatchObject({
      status: "terminated",
      reason: "aborted: step closed",
      signal: "SIGTERM",
    });
    await expect(handle.readOutput()).rejects.toThrow(
      "Agent session sess-abort was terminated: aborted: step closed",
    );
  });

  it("should clean up the whole tree when the launcher process itself dies (PR_SET_PDEATHSIG)", async () => {
    const reaper = await resolveReaperBinary();
    const work = await tempDir("host");
    const ready = join(work, "ready");
    const statusFile = join(work, "status");
    const pidFile = join(work, "host.pid");
    const host = fileURLToPath(new URL("./fixtures/launcher-host.mjs", import.meta.url));
    const hostCommand = [
      process.execPath,
      host,
      reaper,
      statusFile,
      pidFile,
      nastyTree(ready, `${shellQuote(kit.sleep)} 1003`),
    ]
      .map(shellQuote)
      .join(" ");
    // An outer relax-reaper adopts the orphaned inner supervisor once the host dies (PID 1 here does not
    // reap); its own agent keeps sleeping, so it never signals anything itself during the test.
    const outer = spawn(
      reaper,
      ["--grace-ms", "0", "--", "/bin/bash", "-c", `${hostCommand} & exec ${shellQuote(kit.sleep)} 1000`],
      { stdio: "ignore" },
    );
    await waitFor(() => existsSync(ready) && existsSync(pidFile), { what: "the hosted agent tree" });
    // the hosted tree's four sleeps plus the outer reaper's own sleep
    await waitFor(
      async () => (await kit.processes()).filter((row) => !row.stat.startsWith("Z")).length >= 5,
      {
        what: "5 processes",
      },
    );

    process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
    await waitFor(() => readFileSync(statusFile, "utf8").includes("done"), { what: "the inner supervisor" });
    const status = readFileSync(statusFile, "utf8").trim().split("\n");
    expect(status[0]).toMatch(/^started \d+$/);
    expect(status.at(-1)).toMatch(/^done \d+ \d+$/);
    // Only the outer reaper's own sleep is left of everything marked.
    await waitFor(async () => (await kit.processes()).length === 1, { what: "the tree to vanish" });
    const left = await kit.processes();
    expect(left[0]).toMatchObject({ ppid: outer.pid });

    const closed = new Promise((resolve) => outer.once("close", resolve));
    outer.kill("SIGTERM");
    await closed;
    expect(await kit.processes()).toEqual([]);
    expect((await ps()).filter((row) => row.ppid === outer.pid)).toEqual([]);
  });
});
