import { describe, expect, it } from "vitest";
import { GatePauseCancelledError } from "../errors/gate-pause-cancelled-error";
import { GatePauseTimeoutError } from "../errors/gate-pause-timeout-error";
import type { GateCounts, GenerationGateState } from "../gate/generation-gate";
import { ShardedGate, type ShardGateLink, type ShardPauseOutcome } from "./sharded-gate";

/** A fake pool: each shard's report and its pause outcome settle when the test says. */
function fakeLink(shards: number) {
  const reports: Array<{ state: GenerationGateState; counts: GateCounts }> = Array.from(
    { length: shards },
    () => ({ state: "open", counts: { generating: 0, held: 0, abortedPartials: 0, bypassing: 0 } }),
  );
  const calls: string[] = [];
  let settle: ((outcomes: ShardPauseOutcome[]) => void) | undefined;
  const link: ShardGateLink = {
    reports: () => reports,
    pauseAll: (timeoutMs) => {
      calls.push(`pause ${timeoutMs ?? "-"}`);
      return new Promise((resolve) => {
        settle = resolve;
      });
    },
    resumeAll: (version) => calls.push(`resume ${version ?? "-"}`),
    setWeightVersionAll: (version) => calls.push(`version ${version}`),
  };
  return { link, reports, calls, settle: (outcomes: ShardPauseOutcome[]) => settle!(outcomes) };
}

const paused = (abortedRequests: number, heldRequests: number): ShardPauseOutcome => ({
  kind: "paused",
  result: { abortedRequests, heldRequests, quiescentMs: 1 },
});

describe("ShardedGate", () => {
  it("should close at once, pause every shard, sum their results and report paused when all are quiescent", async () => {
    const fake = fakeLink(2);
    const gate = new ShardedGate(fake.link);
    const states: string[] = [];
    gate.onChange(({ state }) => states.push(state));
    const pausing = gate.pause({ timeoutMs: 500 });
    expect(gate.state).toBe("pausing");
    expect(states).toEqual(["pausing"]);
    expect(fake.calls).toEqual(["pause 500"]);
    fake.settle([paused(3, 4), { kind: "gone" }]);
    const result = await pausing;
    expect(result).toMatchObject({ abortedRequests: 3, heldRequests: 4 });
    expect(gate.state).toBe("paused");
    expect(states).toEqual(["pausing", "paused"]);
    // Paused again: at once, nothing aborted, the held requests of the last reports.
    fake.reports[0]!.counts = { generating: 0, held: 2, abortedPartials: 2, bypassing: 1 };
    fake.reports[1]!.counts = { generating: 1, held: 5, abortedPartials: 0, bypassing: 0 };
    expect(await gate.pause()).toEqual({ abortedRequests: 0, heldRequests: 7, quiescentMs: 0 });
    expect(gate.counts()).toEqual({ generating: 1, held: 7, abortedPartials: 2, bypassing: 1 });
  });

  it("should reopen at once, tell every shard, count the held requests and cancel a pending pause", async () => {
    const fake = fakeLink(2);
    const gate = new ShardedGate(fake.link, { weightVersion: "w0" });
    const pausing = gate.pause();
    fake.reports[0]!.counts.held = 2;
    fake.reports[1]!.counts.held = 1;
    expect(gate.resume({ weightVersion: "w1" })).toEqual({ resumedRequests: 3, weightVersion: "w1" });
    await expect(pausing).rejects.toBeInstanceOf(GatePauseCancelledError);
    expect(gate.state).toBe("open");
    expect(fake.calls).toEqual(["pause -", "resume w1"]);
    // The shards' late answer changes nothing.
    fake.settle([paused(1, 0), paused(0, 0)]);
    await Promise.resolve();
    expect(gate.state).toBe("open");
    // Open: resume is a no-op that still names the version on every shard.
    expect(gate.resume({ weightVersion: "w2" })).toEqual({ resumedRequests: 0, weightVersion: "w2" });
    expect(fake.calls.at(-1)).toBe("version w2");
  });

  it("should reject a pause with GatePauseTimeoutError when a shard times out, stay closed, and become paused when every shard reports paused", async () => {
    const fake = fakeLink(2);
    const gate = new ShardedGate(fake.link);
    const pausing = gate.pause({ timeoutMs: 50 });
    fake.settle([paused(1, 0), { kind: "timeout", message: "still generating", generating: 2 }]);
    const error = await pausing.catch((caught: unknown) => caught);
    expect(GatePauseTimeoutError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("50");
    expect(gate.state).toBe("pausing");
    fake.reports[0]!.state = "paused";
    gate.noteReports();
    expect(gate.state).toBe("pausing");
    fake.reports[1]!.state = "paused";
    gate.noteReports();
    expect(gate.state).toBe("paused");
  });

  it("should name a weight version on every shard", () => {
    const fake = fakeLink(3);
    const gate = new ShardedGate(fake.link);
    gate.setWeightVersion("v7");
    expect(gate.weightVersion).toBe("v7");
    expect(fake.calls).toEqual(["version v7"]);
  });
});
