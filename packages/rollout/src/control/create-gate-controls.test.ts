import { GenerationGate } from "@relax/agent-api";
import { SglangApiError, SglangConnectionError } from "@relax/sglang";
import { describe, expect, it } from "vitest";
import { ControlError } from "./control-error";
import { createGateControls } from "./create-gate-controls";

function fakeEngine(failure?: Error) {
  const calls: unknown[] = [];
  return {
    calls,
    engine: {
      updateWeightsFromDisk: async (options: unknown) => {
        calls.push(options);
        if (failure) throw failure;
        return ["http://w0", "http://w1"].map((url) => ({ url, success: true, message: "updated" }));
      },
    },
  };
}

describe("createGateControls", () => {
  it("should pause, refuse weights unless paused, load them on every worker and resume", async () => {
    const gate = new GenerationGate({ engine: { abort: async () => [] }, weightVersion: "v1" });
    const { engine, calls } = fakeEngine();
    const controls = createGateControls({ gate, engine, stepRunning: () => true });
    const early = await controls
      .updateWeightsFromDisk({ modelPath: "/ckpt/2", loadFormat: null, flushCache: true })
      .catch((error) => error);
    expect(ControlError.isInstance(early) && [early.code, early.status, early.message]).toEqual([
      "not_paused",
      409,
      "generation is not paused; POST /rollout/v1/pause first",
    ]);
    expect(await controls.pause({})).toMatchObject({
      state: "paused",
      aborted_requests: 0,
      held_requests: 0,
    });
    expect(
      await controls.updateWeightsFromDisk({
        modelPath: "/ckpt/2",
        weightVersion: "v2",
        loadFormat: null,
        flushCache: false,
      }),
    ).toEqual({
      success: true,
      weight_version: "v2",
      workers: [
        { url: "http://w0", success: true, message: "updated" },
        { url: "http://w1", success: true, message: "updated" },
      ],
    });
    expect(calls).toEqual([{ modelPath: "/ckpt/2", weightVersion: "v2", flushCache: false }]);
    expect(await controls.resume({ weightVersion: "v2" })).toEqual({
      state: "running",
      resumed_requests: 0,
      weight_version: "v2",
    });
    expect(gate.state).toBe("open");
  });

  it("should map engine failures to backend_unavailable / backend_error and a pause timeout to 504", async () => {
    for (const [failure, code] of [
      [
        new SglangConnectionError({ url: "http://w0", cause: new Error("ECONNREFUSED") }),
        "backend_unavailable",
      ],
      [new SglangApiError({ url: "http://w0", status: 400, body: { error: "bad path" } }), "backend_error"],
    ] as const) {
      const gate = new GenerationGate({ engine: { abort: async () => [] } });
      await gate.pause();
      const controls = createGateControls({
        gate,
        engine: fakeEngine(failure).engine,
        stepRunning: () => false,
      });
      const error = await controls
        .updateWeightsFromDisk({ modelPath: "/x", loadFormat: "auto", flushCache: true })
        .catch((caught) => caught);
      expect(ControlError.isInstance(error) && error.code).toBe(code);
    }
    const gate = new GenerationGate({ engine: { abort: async () => [] } });
    const ticket = gate.openTicket();
    await ticket.acquire({ rid: "r", signal: new AbortController().signal });
    const controls = createGateControls({ gate, engine: fakeEngine().engine, stepRunning: () => false });
    const timeout = await controls.pause({ timeoutMs: 10 }).catch((caught) => caught);
    expect(ControlError.isInstance(timeout) && [timeout.code, timeout.status]).toEqual([
      "pause_timeout",
      504,
    ]);
    expect(await controls.resume({})).toEqual({ state: "idle", resumed_requests: 0, weight_version: null });
    ticket.close();
  });
});
