import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { launchAgentSession } from "../src/index";
import { findSessionProcesses, sweepSessionProcesses } from "../src/process/sweep-session-processes";
import { createMarkerKit, createTestBackend, shellQuote, tempDir, waitFor } from "./helpers";

describe("process-group supervision (fallback without relax-reaper)", () => {
  it("should terminate an in-group child that ignores SIGTERM", async () => {
    const kit = await createMarkerKit();
    const { backend } = await createTestBackend({ supervision: "process-group" });
    const ready = join(await tempDir("ready"), "ready");
    const handle = await launchAgentSession({
      sessionId: "sess-fallback",
      groupId: "g",
      rolloutMode: "train",
      baseUrl: "http://h/v1",
      command: `( trap "" TERM; exec ${shellQuote(kit.sleep)} 1000 ) & touch ${shellQuote(ready)}; wait`,
      graceMs: 200,
      backend,
    });
    await waitFor(() => existsSync(ready));
    const outcome = await handle.terminate("stop");
    expect(outcome).toMatchObject({ status: "terminated", reaped: false });
    // Orphans may linger as zombies of PID 1 in this mode; no live process may remain.
    expect((await kit.processes()).filter((row) => !row.stat.startsWith("Z"))).toEqual([]);
  });

  it("should find and kill processes that left the group, by their environment markers", async () => {
    const kit = await createMarkerKit();
    const markers = { RELAX_SESSION_ID: `sweep-${process.pid}`, RELAX_SESSION_IO_DIR: kit.dir };
    // A detached (setsid) process carrying the markers, still our own child so that Node reaps it.
    const child = spawn(kit.sleep, ["1000"], {
      detached: true,
      stdio: "ignore",
      env: { ...process.env, ...markers },
    });
    const exited = new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    await waitFor(async () => (await findSessionProcesses({ markers })).includes(child.pid!));
    expect(await findSessionProcesses({ markers: { ...markers, RELAX_SESSION_ID: "other" } })).toEqual([]);
    expect(await sweepSessionProcesses({ markers, graceMs: 100 })).toBe(1);
    expect(await exited).toBe("SIGTERM");
    expect(await kit.processes()).toEqual([]);
  });
});
