import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  createGatewayApp,
  GatePauseCancelledError,
  GatePauseTimeoutError,
  GenerationGate,
  SessionRegistry,
} from "@relax/agent-api";
import type { TrainingRow } from "@relax/export";
import { describe, expect, it } from "vitest";
import { ControlError } from "./control-error";
import {
  type ControlRecord,
  controlRecordSchema,
  createControlJsonSchema,
  type StatusResponse,
  statusResponseSchema,
} from "./control-schemas";
import {
  convertGateCounts,
  convertGateError,
  convertGatePauseResult,
  convertGateResumeResult,
} from "./convert-gate-results";
import { createControlApp } from "./create-control-app";
import type { ControlRecordSink, RolloutService } from "./rollout-service";

const TOKEN = "ctl-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };

const status: StatusResponse = {
  state: "idle",
  next_rollout_id: 2,
  weight_version: "v2",
  step: null,
  dataset: { size: 300, cursor: 16, epoch: 0 },
  eval: { interval: 5, next_eval_rollout_id: 4, datasets: ["gsm8k"] },
  in_flight: { generating: 0, held: 0, aborted_partials: 0 },
  run_dir: null,
  config_hash: "sha256:abc",
  backend: "standin",
  engine_faults: { held: 1, outages: 2, held_turns: 7, resumed_turns: 6, failed_turns: 0, stalled_calls: 1 },
};

const row: TrainingRow = {
  tokens: [1, 2, 3, 4],
  loss_mask: [1, 1],
  rollout_log_probs: [-0.5, -0.25],
  advantage: 1,
  advantages: [1, 1],
  reward: 1,
  reward_details: {},
  response_length: 2,
  prompt_length: 2,
  status: "completed",
  weight_versions: ["v2"],
  weight_version_spans: [{ version: "v2", start: 0, end: 2 }],
  abort_count: 0,
  rollout_id: "s0",
  group_index: 0,
  prompt_index: 0,
  sample_index: 0,
  session_id: "s0",
  context_name: null,
  state_hash: "h",
  num_turns: 1,
  stop_reason: "stop",
  metadata: {},
};

const summary = {
  groups: 1,
  rows: 1,
  dropped_groups: 0,
  debt: 0,
  resident_groups: 0,
  wall_s: 0.5,
  drops_by_reason: {},
  metrics: { "rollout/reward_mean": 1 },
};

/** A fake service: records calls; `step` lets a test drive the records of a step by hand. */
function fakeService() {
  const calls: Array<[string, unknown]> = [];
  let paused = false;
  let release: (() => void) | undefined;
  const state = { finished: false, afterDisconnect: 0 };
  const service: RolloutService = {
    status: () => status,
    health: async () => ({ ok: true }),
    runStep: async (request, sink: ControlRecordSink) => {
      calls.push(["runStep", request]);
      if (request.rolloutId !== 2) {
        throw new ControlError({
          code: "step_out_of_order",
          message: `rollout_id ${request.rolloutId} asked, next is 2`,
          path: "rollout_id",
        });
      }
      sink({
        type: "step_start",
        rollout_id: 2,
        mode: "train",
        groups: 1,
        samples_per_group: 1,
        weight_version: "v2",
      });
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      sink({ type: "row", rollout_id: 2, row });
      state.afterDisconnect++;
      sink({ type: "step_end", rollout_id: 2, summary });
      state.finished = true;
    },
    runEvals: async (request, sink) => {
      calls.push(["runEvals", request]);
      sink({ type: "eval_row", dataset: "gsm8k", row });
      throw new Error("eval dataset vanished");
    },
    pause: async (request) => {
      calls.push(["pause", request]);
      const aborted = paused ? 0 : 3;
      paused = true;
      return { state: "paused", aborted_requests: aborted, held_requests: 5, quiescent_ms: 1.5 };
    },
    resume: async (request) => {
      calls.push(["resume", request]);
      const resumed = paused ? 5 : 0;
      paused = false;
      return { state: "running", resumed_requests: resumed, weight_version: request.weightVersion ?? null };
    },
    updateWeightsFromDisk: async (request) => {
      calls.push(["weights", request]);
      if (!paused) throw new ControlError({ code: "not_paused", message: "pause generation first" });
      return {
        success: true,
        weight_version: request.weightVersion ?? null,
        workers: [{ url: "http://w0", success: true, message: "ok" }],
      };
    },
  };
  return { service, calls, state, release: () => release?.() };
}

const post = (body: unknown, headers: Record<string, string> = auth) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

async function readLines(response: Response): Promise<ControlRecord[]> {
  const text = await response.text();
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => controlRecordSchema.parse(JSON.parse(line)));
}

describe("createControlApp", () => {
  it("should refuse a missing, wrong or session credential with 401 unauthorized", async () => {
    const app = createControlApp({ token: TOKEN, service: fakeService().service });
    const missing = await app.request("/rollout/v1/status");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: { code: "unauthorized", message: "missing Authorization: Bearer <control token>" },
    });
    for (const credential of ["g1-0-abc.s0-123456", `${TOKEN}x`, TOKEN.slice(0, -1)]) {
      const wrong = await app.request("/rollout/v1/status", {
        headers: { authorization: `Bearer ${credential}` },
      });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toEqual({ error: { code: "unauthorized", message: "wrong control token" } });
    }
    for (const header of ["Basic dXNlcjpwYXNz", `Bearer ${TOKEN}, Bearer ${TOKEN}`]) {
      const malformed = await app.request("/rollout/v1/status", { headers: { authorization: header } });
      expect(malformed.status).toBe(401);
      expect(await malformed.json()).toEqual({
        error: {
          code: "unauthorized",
          message: "the Authorization header must be one `Bearer <control token>`",
        },
      });
    }
    const unknown = await app.request("/rollout/v1/nope");
    expect(unknown.status).toBe(401);
    expect(() => createControlApp({ token: "", service: fakeService().service })).toThrow(RangeError);
  });

  it("should answer status, health and 404 not_found with the token", async () => {
    const { service } = fakeService();
    const app = createControlApp({ token: TOKEN, service });
    const answer = await app.request("/rollout/v1/status", { headers: auth });
    expect(answer.status).toBe(200);
    expect(statusResponseSchema.parse(await answer.json())).toEqual(status);
    expect(await (await app.request("/rollout/v1/health", { headers: auth })).json()).toEqual({ ok: true });
    service.health = async () => ({
      ok: false,
      error: { code: "backend_unavailable", message: "engine down" },
    });
    const unhealthy = await app.request("/rollout/v1/health", { headers: auth });
    expect(unhealthy.status).toBe(503);
    expect(await unhealthy.json()).toEqual({
      ok: false,
      error: { code: "backend_unavailable", message: "engine down" },
    });
    const unknown = await app.request("/rollout/v1/steps/2", { headers: auth });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { code: "not_found", message: "no route for GET /rollout/v1/steps/2" },
    });
  });

  it("should answer 400 invalid_body with the field path", async () => {
    const { service, calls } = fakeService();
    const app = createControlApp({ token: TOKEN, service });
    const cases: Array<[string, unknown, { code: string; message: string; path?: string }]> = [
      ["/steps", "{not json", { code: "invalid_body", message: "the body is not JSON" }],
      ["/steps", "", { code: "invalid_body", message: "the body is empty; expected a JSON object" }],
      [
        "/steps",
        { rollout_id: -1 },
        {
          code: "invalid_body",
          message: "rollout_id: Too small: expected number to be >=0",
          path: "rollout_id",
        },
      ],
      [
        "/steps",
        { rollout_id: 2, weight_version: 3 },
        {
          code: "invalid_body",
          message: "weight_version: Invalid input: expected string, received number",
          path: "weight_version",
        },
      ],
      [
        "/evals",
        { rollout_id: 4, datasets: ["ok", ""] },
        {
          code: "invalid_body",
          message: "datasets.1: Too small: expected string to have >=1 characters",
          path: "datasets.1",
        },
      ],
      [
        "/pause",
        { timeout_s: 0 },
        {
          code: "invalid_body",
          message: "timeout_s: Too small: expected number to be >0",
          path: "timeout_s",
        },
      ],
      ["/resume", [], { code: "invalid_body", message: "Invalid input: expected object, received array" }],
      [
        "/weights",
        { weight_version: "v3" },
        {
          code: "invalid_body",
          message: "model_path: Invalid input: expected string, received undefined",
          path: "model_path",
        },
      ],
    ];
    for (const [path, body, error] of cases) {
      const response = await app.request(`/rollout/v1${path}`, post(body));
      expect({ path, status: response.status, body: await response.json() }).toEqual({
        path,
        status: 400,
        body: { error },
      });
    }
    expect(calls).toEqual([]);
  });

  it("should pause, resume and load weights, with 409 not_paused while running", async () => {
    const { service, calls } = fakeService();
    const app = createControlApp({ token: TOKEN, service });
    const early = await app.request("/rollout/v1/weights", post({ model_path: "/ckpt/3" }));
    expect(early.status).toBe(409);
    expect(await early.json()).toEqual({ error: { code: "not_paused", message: "pause generation first" } });
    const pause = await app.request("/rollout/v1/pause", { method: "POST", headers: auth });
    expect(pause.status).toBe(200);
    expect(await pause.json()).toEqual({
      state: "paused",
      aborted_requests: 3,
      held_requests: 5,
      quiescent_ms: 1.5,
    });
    const again = await app.request("/rollout/v1/pause", post({ timeout_s: 2.5 }));
    expect((await again.json()).aborted_requests).toBe(0);
    const weights = await app.request(
      "/rollout/v1/weights",
      post({ model_path: "/ckpt/3", weight_version: "v3", load_format: null }),
    );
    expect(await weights.json()).toEqual({
      success: true,
      weight_version: "v3",
      workers: [{ url: "http://w0", success: true, message: "ok" }],
    });
    const resume = await app.request("/rollout/v1/resume", post({ weight_version: "v3" }));
    expect(await resume.json()).toEqual({ state: "running", resumed_requests: 5, weight_version: "v3" });
    expect(calls).toEqual([
      ["weights", { modelPath: "/ckpt/3", loadFormat: null, flushCache: true }],
      ["pause", {}],
      ["pause", { timeoutMs: 2500 }],
      ["weights", { modelPath: "/ckpt/3", weightVersion: "v3", loadFormat: null, flushCache: true }],
      ["resume", { weightVersion: "v3" }],
    ]);
  });

  it("should stream a step as NDJSON, one line per record, and refuse an out-of-order step with 409", async () => {
    const fake = fakeService();
    const app = createControlApp({ token: TOKEN, service: fake.service });
    const refused = await app.request("/rollout/v1/steps", post({ rollout_id: 3 }));
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: { code: "step_out_of_order", message: "rollout_id 3 asked, next is 2", path: "rollout_id" },
    });

    const response = await app.request("/rollout/v1/steps", post({ rollout_id: 2, weight_version: "v2" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    const reader = response.body!.getReader();
    const first = await reader.read();
    // The first line arrives while the step still runs.
    expect(new TextDecoder().decode(first.value)).toBe(
      `${JSON.stringify({ type: "step_start", rollout_id: 2, mode: "train", groups: 1, samples_per_group: 1, weight_version: "v2" })}\n`,
    );
    expect(fake.state.finished).toBe(false);
    fake.release();
    const rest: string[] = [];
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      rest.push(new TextDecoder().decode(next.value));
    }
    expect(rest).toEqual([
      `${JSON.stringify({ type: "row", rollout_id: 2, row })}\n`,
      `${JSON.stringify({ type: "step_end", rollout_id: 2, summary })}\n`,
    ]);
    expect(fake.calls.at(-1)).toEqual(["runStep", { rolloutId: 2, weightVersion: "v2" }]);
  });

  it("should pass last_step (final_backfill read as it), refuse it with next_step_follows: true, and serve a step's rows", async () => {
    const fake = fakeService();
    const rowsText = `${JSON.stringify(row)}\n`;
    const app = createControlApp({
      token: TOKEN,
      service: {
        ...fake.service,
        runStep: async (request, sink) => {
          fake.calls.push(["runStep", request]);
          sink({ type: "step_end", rollout_id: request.rolloutId, summary });
        },
        stepRows: async ({ rolloutId }) => {
          if (rolloutId >= 2)
            throw new ControlError({
              code: "not_found",
              message: `step ${rolloutId} has not finished`,
              path: "rollout_id",
            });
          return rowsText;
        },
      },
    });
    for (const body of [
      { rollout_id: 2, last_step: true },
      { rollout_id: 2, final_backfill: true, next_step_follows: false },
      { rollout_id: 2, next_step_follows: false },
    ]) {
      expect((await app.request("/rollout/v1/steps", post(body))).status).toBe(200);
    }
    expect(fake.calls).toEqual([
      ["runStep", { rolloutId: 2, lastStep: true }],
      ["runStep", { rolloutId: 2, nextStepFollows: false, lastStep: true }],
      ["runStep", { rolloutId: 2, nextStepFollows: false }],
    ]);
    const conflict = await app.request(
      "/rollout/v1/steps",
      post({ rollout_id: 2, last_step: true, next_step_follows: true }),
    );
    expect([conflict.status, await conflict.json()]).toEqual([
      400,
      {
        error: {
          code: "invalid_body",
          message: "next_step_follows: true contradicts last_step: true (the last step has no next step)",
          path: "next_step_follows",
        },
      },
    ]);
    const rows = await app.request("/rollout/v1/steps/1/rows", { headers: auth });
    expect([rows.status, rows.headers.get("content-type"), await rows.text()]).toEqual([
      200,
      "application/x-ndjson; charset=utf-8",
      rowsText,
    ]);
    const unfinished = await app.request("/rollout/v1/steps/2/rows", { headers: auth });
    expect([unfinished.status, await unfinished.json()]).toEqual([
      404,
      { error: { code: "not_found", message: "step 2 has not finished", path: "rollout_id" } },
    ]);
    for (const bad of ["-1", "01", "1.5", "x"]) {
      const answer = await app.request(`/rollout/v1/steps/${bad}/rows`, { headers: auth });
      expect([answer.status, await answer.json()]).toEqual([
        400,
        {
          error: {
            code: "invalid_body",
            message: `rollout_id: must be an integer >= 0, got "${bad}"`,
            path: "rollout_id",
          },
        },
      ]);
    }
    // A service without stored rows: 404.
    const bare = createControlApp({ token: TOKEN, service: fake.service });
    expect((await bare.request("/rollout/v1/steps/0/rows", { headers: auth })).status).toBe(404);
  });

  it("should keep running a step after the client disconnects", async () => {
    const fake = fakeService();
    const app = createControlApp({ token: TOKEN, service: fake.service });
    const client = new AbortController();
    const response = await app.request("/rollout/v1/steps", {
      ...post({ rollout_id: 2 }),
      signal: client.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    client.abort();
    fake.release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fake.state).toEqual({ finished: true, afterDisconnect: 1 });
  });

  it("should end an eval stream that fails after its first record with an error line", async () => {
    const app = createControlApp({ token: TOKEN, service: fakeService().service });
    const response = await app.request("/rollout/v1/evals", post({ rollout_id: 4, datasets: ["gsm8k"] }));
    expect(response.status).toBe(200);
    expect(await readLines(response)).toEqual([
      { type: "eval_row", dataset: "gsm8k", row },
      { type: "error", error: { code: "internal_error", message: "eval dataset vanished" } },
    ]);
  });

  it("should map a service refusal to its status and an unexpected failure to 500 internal_error", async () => {
    const { service } = fakeService();
    service.runEvals = async () => {
      throw new ControlError({ code: "step_running", message: "step 2 is running" });
    };
    service.pause = async () => {
      throw new TypeError("gate exploded");
    };
    const app = createControlApp({ token: TOKEN, service });
    const running = await app.request("/rollout/v1/evals", post({ rollout_id: 4 }));
    expect(running.status).toBe(409);
    expect(await running.json()).toEqual({ error: { code: "step_running", message: "step 2 is running" } });
    const failed = await app.request("/rollout/v1/pause", post({}));
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: { code: "internal_error", message: "gate exploded" } });
  });
});

describe("trainer-api.schema.json", () => {
  it("should match the committed docs/trainer-api.schema.json (run `pnpm generate:schema` in apps/gateway)", async () => {
    const committed = await readFile(
      fileURLToPath(new URL("../../../../docs/trainer-api.schema.json", import.meta.url)),
      "utf8",
    );
    expect(committed).toBe(`${JSON.stringify(createControlJsonSchema(), null, 2)}\n`);
  });
});

describe("convert-gate-results", () => {
  it("should spell gate results and errors for the wire", async () => {
    expect(convertGatePauseResult({ abortedRequests: 2, heldRequests: 7, quiescentMs: 18.51234 })).toEqual({
      state: "paused",
      aborted_requests: 2,
      held_requests: 7,
      quiescent_ms: 18.512,
    });
    const gate = new GenerationGate({ engine: { abort: async () => [] } });
    await gate.pause();
    expect(convertGateResumeResult(gate.resume({ weightVersion: "v3" }), false)).toEqual({
      state: "idle",
      resumed_requests: 0,
      weight_version: "v3",
    });
    const timeout = convertGateError(new GatePauseTimeoutError({ timeoutMs: 5, generating: 1 }));
    expect(ControlError.isInstance(timeout) && [timeout.code, timeout.status, timeout.message]).toEqual([
      "pause_timeout",
      504,
      "generation did not stop within 5 ms (1 engine calls still in flight)",
    ]);
    const cancelled = convertGateError(new GatePauseCancelledError());
    expect(ControlError.isInstance(cancelled) && [cancelled.code, cancelled.status]).toEqual([
      "pause_cancelled",
      409,
    ]);
    expect(convertGateCounts({ generating: 1, held: 4, abortedPartials: 2, bypassing: 0 })).toEqual({
      generating: 1,
      held: 4,
      aborted_partials: 2,
    });
    const other = new Error("x");
    expect(convertGateError(other)).toBe(other);
  });
});

describe("createControlApp mounted next to the agent-facing app", () => {
  it("should serve /rollout/v1 with the token and leave the agent routes and /health alone", async () => {
    const root = createGatewayApp({
      registry: new SessionRegistry(),
      generate: async () => {
        throw new Error("unused");
      },
      heartbeatMs: 0,
      controlToken: TOKEN,
    });
    root.route("/", createControlApp({ token: TOKEN, service: fakeService().service }));
    const answer = await root.request("/rollout/v1/status", { headers: auth });
    expect(answer.status).toBe(200);
    expect((await answer.json()).next_rollout_id).toBe(2);
    expect((await root.request("/rollout/v1/status")).status).toBe(401);
    expect((await root.request("/health")).status).toBe(200);
    const unknownSession = await root.request("/agentic_api/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer nobody" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(unknownSession.status).toBe(404);
  });
});
