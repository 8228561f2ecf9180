import { describe, expect, it } from "vitest";
import { GatePauseCancelledError } from "../errors/gate-pause-cancelled-error";
import { GatePauseTimeoutError } from "../errors/gate-pause-timeout-error";
import { GenerationGate } from "./generation-gate";

function fakeEngine() {
  const aborted: string[] = [];
  const abort = async (rid: string) => {
    aborted.push(rid);
    return [{ url: "http://w0", ok: true }];
  };
  return { aborted, abort };
}

describe("GenerationGate", () => {
  it("should pause at once with nothing in flight, idempotently, and tell listeners", async () => {
    const engine = fakeEngine();
    const gate = new GenerationGate({ engine, weightVersion: "v1" });
    const changes: string[] = [];
    gate.onChange(({ state, weightVersion }) => changes.push(`${state}:${weightVersion}`));
    expect(await gate.pause()).toMatchObject({ abortedRequests: 0, heldRequests: 0 });
    expect(await gate.pause()).toEqual({ abortedRequests: 0, heldRequests: 0, quiescentMs: 0 });
    expect(gate.resume({ weightVersion: "v2" })).toEqual({ resumedRequests: 0, weightVersion: "v2" });
    expect(gate.resume()).toEqual({ resumedRequests: 0, weightVersion: "v2" });
    expect(changes).toEqual(["pausing:v1", "paused:v1", "open:v2"]);
    expect(engine.aborted).toEqual([]);
  });

  it("should abort every in-flight rid, resolve on the last release and hold new calls until resume", async () => {
    const engine = fakeEngine();
    const gate = new GenerationGate({ engine });
    const signal = new AbortController().signal;
    const a = gate.openTicket();
    const b = gate.openTicket();
    await a.acquire({ rid: "rid-a", signal });
    await b.acquire({ rid: "rid-b", signal });
    expect(gate.counts()).toEqual({ generating: 2, held: 0, abortedPartials: 0, bypassing: 0 });
    let resolved = false;
    const pausing = gate.pause().then((result) => {
      resolved = true;
      return result;
    });
    expect(engine.aborted).toEqual(["rid-a", "rid-b"]);
    expect(a.release({ aborted: true })).toEqual({ abortedByPause: true });
    await Promise.resolve();
    expect(resolved).toBe(false);
    // b's abort came too late: it finished normally, so it is no partial to continue.
    expect(b.release({ aborted: false })).toEqual({ abortedByPause: false });
    const result = await pausing;
    expect(result).toMatchObject({ abortedRequests: 2, heldRequests: 1 });
    expect(gate.counts()).toEqual({ generating: 0, held: 1, abortedPartials: 1, bypassing: 0 });

    let started = false;
    const next = a.acquire({ rid: "rid-a2", signal }).then(() => {
      started = true;
    });
    const c = gate.openTicket();
    const cStarted = c.acquire({ rid: "rid-c", signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(started).toBe(false);
    expect(gate.counts()).toEqual({ generating: 0, held: 2, abortedPartials: 1, bypassing: 0 });
    expect(gate.resume()).toEqual({ resumedRequests: 2, weightVersion: undefined });
    await next;
    await cStarted;
    expect(gate.counts()).toEqual({ generating: 2, held: 0, abortedPartials: 0, bypassing: 0 });
    b.close();
    a.close();
    c.close();
    expect(gate.counts()).toEqual({ generating: 0, held: 0, abortedPartials: 0, bypassing: 0 });
  });

  it("should re-send aborts while pausing, time out without reopening, and share a pending pause", async () => {
    const engine = fakeEngine();
    const gate = new GenerationGate({ engine, reabortIntervalMs: 10 });
    const ticket = gate.openTicket();
    await ticket.acquire({ rid: "slow", signal: new AbortController().signal });
    const first = gate.pause();
    await expect(gate.pause({ timeoutMs: 35 })).rejects.toBeInstanceOf(GatePauseTimeoutError);
    expect(gate.state).toBe("pausing");
    expect(engine.aborted.length).toBeGreaterThanOrEqual(3);
    expect(new Set(engine.aborted)).toEqual(new Set(["slow"]));
    ticket.release({ aborted: true });
    expect(await first).toMatchObject({ abortedRequests: 1, heldRequests: 1 });
  });

  it("should reject a pending pause when resume comes first, and reject a held acquire on disconnect", async () => {
    const gate = new GenerationGate({ engine: fakeEngine() });
    const ticket = gate.openTicket();
    await ticket.acquire({ rid: "r1", signal: new AbortController().signal });
    const pausing = gate.pause();
    gate.resume();
    await expect(pausing).rejects.toBeInstanceOf(GatePauseCancelledError);
    expect(gate.state).toBe("open");
    ticket.release({ aborted: false });

    await gate.pause();
    const client = new AbortController();
    const held = ticket.acquire({ rid: "r2", signal: client.signal });
    client.abort(new Error("client went away"));
    await expect(held).rejects.toThrow("client went away");
    ticket.close();
    expect(gate.counts()).toEqual({ generating: 0, held: 0, abortedPartials: 0, bypassing: 0 });
  });
});

describe("GenerationGate rids, epochs and protected calls", () => {
  it("should abort all of one epoch's calls with one prefix abort, never reaching the next epoch's rids", async () => {
    const calls: Array<{ rid: string; allowPrefix: boolean | undefined }> = [];
    let answer: (() => void) | undefined;
    const engine = {
      abort: (rid: string, options?: { allowPrefix?: boolean }) => {
        calls.push({ rid, allowPrefix: options?.allowPrefix });
        return new Promise<[]>((resolve) => {
          answer = () => resolve([]);
        });
      },
    };
    const gate = new GenerationGate({ engine, ridPrefix: "c0ffee00", reabortIntervalMs: 5 });
    const signal = new AbortController().signal;
    const tickets = Array.from({ length: 50 }, () => gate.openTicket());
    const rids = tickets.map(() => gate.createRid());
    expect(rids.every((rid) => rid.length === 32 && rid.startsWith("c0ffee000000"))).toBe(true);
    expect(new Set(rids).size).toBe(50);
    for (const [i, ticket] of tickets.entries()) await ticket.acquire({ rid: rids[i]!, signal });
    const pausing = gate.pause();
    // Several re-abort intervals pass while the first abort is unanswered: nothing piles up.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toEqual([{ rid: "c0ffee000000", allowPrefix: true }]);
    answer?.();
    for (const ticket of tickets) ticket.release({ aborted: true });
    expect(await pausing).toMatchObject({ abortedRequests: 50, heldRequests: 50 });
    gate.resume();
    // After a resume the epoch moves on: the old prefix matches none of the new rids.
    const next = gate.createRid();
    expect(next.startsWith("c0ffee000001")).toBe(true);
    expect(next.startsWith("c0ffee000000")).toBe(false);
    for (const ticket of tickets) ticket.close();
  });

  it("should let a bypassing (protected) call start on a closed gate under a rid no prefix abort matches", async () => {
    const engine = fakeEngine();
    const gate = new GenerationGate({ engine, ridPrefix: "c0ffee00" });
    const signal = new AbortController().signal;
    const normal = gate.openTicket();
    const guarded = gate.openTicket();
    const normalRid = await normal.acquire({ signal });
    expect(normalRid.startsWith("c0ffee000000")).toBe(true);
    const pausing = gate.pause();
    expect(engine.aborted).toEqual(["c0ffee000000"]);
    const guardedRid = await guarded.acquire({ signal, bypass: () => true });
    expect(guardedRid).toHaveLength(32);
    expect(guardedRid.startsWith("c0ffee00")).toBe(false);
    expect(gate.isProtectedRid(guardedRid)).toBe(true);
    expect(gate.isProtectedRid(normalRid)).toBe(false);
    expect(gate.counts()).toEqual({ generating: 1, held: 0, abortedPartials: 0, bypassing: 1 });
    // The pause waits for the normal call only; the protected one keeps generating through it.
    expect(normal.release({ aborted: true })).toEqual({ abortedByPause: true });
    expect(await pausing).toMatchObject({ abortedRequests: 1, heldRequests: 1 });
    expect(guarded.release({ aborted: false })).toEqual({ abortedByPause: false });
    expect(gate.counts()).toEqual({ generating: 0, held: 1, abortedPartials: 1, bypassing: 0 });

    // A held call whose session becomes protected while it waits starts as soon as the gate changes.
    let protectedNow = false;
    const promoted = normal.acquire({ signal, bypass: () => protectedNow });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(gate.counts().held).toBe(1);
    protectedNow = true;
    gate.setWeightVersion("v2");
    expect(gate.isProtectedRid(await promoted)).toBe(true);
    expect(gate.state).toBe("paused");
    normal.close();
    guarded.close();
    expect(gate.counts()).toEqual({ generating: 0, held: 0, abortedPartials: 0, bypassing: 0 });
  });

  it("should refuse a rid prefix that is not short lowercase hex", () => {
    expect(() => new GenerationGate({ engine: fakeEngine(), ridPrefix: "run-1" })).toThrowError(
      'ridPrefix must be 1-16 lowercase hex characters, got "run-1"',
    );
  });
});
