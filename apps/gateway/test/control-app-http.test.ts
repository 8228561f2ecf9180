import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { ControlRecordSink, RolloutService } from "@relax/rollout";
import { createControlApp } from "@relax/rollout";
import { describe, expect, it } from "vitest";

const TOKEN = "ctl-http-token";

/** A service whose step emits `step_start`, then waits for `release()` before `step_end`. */
function steppingService() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { finished: false };
  const unused = async (): Promise<never> => {
    throw new Error("unused");
  };
  const service: RolloutService = {
    status: unused,
    health: async () => ({ ok: true }),
    runStep: async (_request, sink: ControlRecordSink) => {
      sink({
        type: "step_start",
        rollout_id: 0,
        mode: "train",
        groups: 0,
        samples_per_group: 1,
        weight_version: null,
      });
      await gate;
      sink({
        type: "step_end",
        rollout_id: 0,
        summary: {
          groups: 0,
          rows: 0,
          dropped_groups: 0,
          debt: 0,
          resident_groups: 0,
          wall_s: 0,
          drops_by_reason: {},
          metrics: {},
        },
      });
      state.finished = true;
    },
    runEvals: unused,
    pause: unused,
    resume: unused,
    updateWeightsFromDisk: unused,
  };
  return { service, state, release };
}

async function listen(service: RolloutService) {
  const app = createControlApp({ token: TOKEN, service });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rollout/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("control app over HTTP (@hono/node-server)", () => {
  it("should flush step_start before the step ends, and finish the step after the client hangs up", async () => {
    const { service, state, release } = steppingService();
    const { url, close } = await listen(service);
    try {
      const client = new AbortController();
      const response = await fetch(`${url}/steps`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ rollout_id: 0 }),
        signal: client.signal,
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(JSON.parse(new TextDecoder().decode(first.value))).toMatchObject({
        type: "step_start",
        rollout_id: 0,
      });
      expect(state.finished).toBe(false);
      client.abort();
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(state.finished).toBe(true);
    } finally {
      close();
    }
  });
});
