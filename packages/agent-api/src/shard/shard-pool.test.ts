import { describe, expect, it } from "vitest";
import { mayRestart, placeGroup, shardStatusOf, type WatchedShard, watchdogDecision } from "./shard-pool";

describe("placeGroup", () => {
  it("should place a Group on one live shard, the same one every time, and move only a down shard's Groups", () => {
    const ids = Array.from({ length: 200 }, (_, i) => `g0-${i}-abc`);
    const all = ids.map((id) => placeGroup(id, ["ready", "ready", "ready"]));
    expect(new Set(all)).toEqual(new Set([0, 1, 2]));
    expect(ids.map((id) => placeGroup(id, ["ready", "ready", "ready"]))).toEqual(all);
    const oneDown = ids.map((id) => placeGroup(id, ["ready", "down", "restarting"]));
    for (const [i, shard] of oneDown.entries()) {
      expect(shard).not.toBe(1);
      if (all[i] !== 1) expect(shard).toBe(all[i]);
    }
    expect(placeGroup("g", ["down", "down"])).toBe(-1);
  });
});

describe("mayRestart", () => {
  it("should allow maxRestarts restarts within the window and forget the ones older than it", () => {
    const times = [0, 1_000, 2_000];
    expect(mayRestart(times, 3_000, { windowMs: 10_000, maxRestarts: 3 })).toBe(false);
    expect(times).toEqual([0, 1_000, 2_000]);
    expect(mayRestart(times, 11_500, { windowMs: 10_000, maxRestarts: 3 })).toBe(true);
    expect(times).toEqual([2_000]);
    expect(mayRestart([], 0, { windowMs: 1, maxRestarts: 0 })).toBe(false);
  });
});

describe("watchdogDecision", () => {
  const shard = (state: WatchedShard["state"], lastHeard: number, hungMs?: number): WatchedShard => ({
    state,
    lastHeard,
    hungMs,
  });
  const options = { tickMs: 1_000, unresponsiveMs: 5_000 };

  it("should declare hung only ready shards silent longer than the timeout, once", () => {
    const shards = [
      shard("ready", 0),
      shard("ready", 9_000),
      shard("restarting", 0),
      shard("ready", 0, 6_000),
      shard("ready", 5_000),
    ];
    expect(watchdogDecision(shards, 10_000, 9_000, options)).toEqual({ kind: "check", hung: [0] });
  });

  it("should blame its own stalled event loop, not the shards, after a late tick", () => {
    expect(watchdogDecision([shard("ready", 0)], 10_000, 6_500, options)).toEqual({ kind: "stalled" });
    expect(watchdogDecision([shard("ready", 0)], 10_000, 7_000, options)).toEqual({
      kind: "check",
      hung: [0],
    });
  });
});

describe("shardStatusOf", () => {
  it("should report pid and url only when known", () => {
    expect(
      shardStatusOf({ index: 1, state: "starting", sessions: new Map(), restarts: 0, child: undefined }),
    ).toEqual({ index: 1, state: "starting", sessions: 0, restarts: 0 });
    expect(
      shardStatusOf({
        index: 0,
        state: "ready",
        child: { pid: 42 },
        url: "http://127.0.0.1:1/agentic_api/",
        sessions: { size: 3 },
        restarts: 1,
      }),
    ).toEqual({
      index: 0,
      state: "ready",
      pid: 42,
      url: "http://127.0.0.1:1/agentic_api/",
      sessions: 3,
      restarts: 1,
    });
  });
});
