import type { IncomingMessage, ServerResponse } from "node:http";
import type { TextTokenizer } from "@relax/chat";
import { describe, expect, it } from "vitest";
import { constantPolicy } from "../src/policies/constant-policy";
import { handleControlRoute, requireStringField } from "../src/standin-control-routes";
import { createStandinEngineState } from "../src/standin-engine-state";
import { applyFault, handleFaultRoute, readKnob } from "../src/standin-fault-routes";
import { HttpProblem } from "../src/standin-http";
import { handleInfoRoute, standinModelInfo } from "../src/standin-info-routes";
import { parseStandinBody } from "../src/standin-route";

/** A response that records what was sent: status, headers and body text. */
function recordingResponse() {
  const sent: { status?: number; headers?: Record<string, unknown>; body?: string } = {};
  const listeners = new Map<string, () => void>();
  const response = {
    writeHead(status: number, headers: Record<string, unknown>) {
      sent.status = status;
      sent.headers = headers;
      return response;
    },
    end(text?: string) {
      sent.body = text ?? "";
    },
    once(event: string, listener: () => void) {
      listeners.set(event, listener);
      return response;
    },
  };
  /** Emits `finish`, as the server does once the answer was handed to the socket. */
  const finish = () => listeners.get("finish")?.();
  return { response: response as unknown as ServerResponse, sent, finish };
}

/** Engine state without a real tokenizer (these routes never tokenise). */
function bareState() {
  return createStandinEngineState({ tokenizer: {} as TextTokenizer, policy: constantPolicy("hi") });
}

describe("readKnob", () => {
  it("should read duration_ms and mode, and refuse unknown fields and bad durations with a 400", () => {
    expect(readKnob({ duration_ms: 5, mode: "refuse" }, ["duration_ms", "mode"])).toEqual({
      duration_ms: 5,
      mode: "refuse",
    });
    expect(readKnob(undefined, ["duration_ms"])).toEqual({});
    expect(() => readKnob({ mode: "x" }, ["duration_ms"])).toThrow(
      "mode: unknown field (expected duration_ms)",
    );
    const problem = (() => {
      try {
        readKnob({ duration_ms: -1 }, ["duration_ms"]);
      } catch (error) {
        return error;
      }
    })();
    expect(problem).toBeInstanceOf(HttpProblem);
    expect((problem as HttpProblem).status).toBe(400);
  });
});

describe("applyFault", () => {
  it("should answer an http-error, swallow a hang, reset the socket, and leave reset-after-tokens to /generate", () => {
    const { response, sent } = recordingResponse();
    expect(applyFault({ type: "http-error", status: 502 }, {} as IncomingMessage, response)).toBe(true);
    expect(sent.status).toBe(502);
    expect(JSON.parse(sent.body!)).toEqual({ error: { message: "stand-in injected fault (HTTP 502)" } });
    let destroyed = 0;
    const request = { socket: { destroy: () => destroyed++ } } as unknown as IncomingMessage;
    expect(applyFault({ type: "reset" }, request, response)).toBe(true);
    expect(destroyed).toBe(1);
    expect(applyFault({ type: "hang" }, request, response)).toBe(true);
    expect(applyFault({ type: "reset-after-tokens", tokens: 2 }, request, response)).toBe(false);
  });
});

describe("handleFaultRoute", () => {
  it("should add a fault rule, start and end a stall, and not serve other paths", () => {
    const state = bareState();
    const { response, sent } = recordingResponse();
    expect(handleFaultRoute(state, "/standin/faults", { fault: { type: "hang" } }, response)).toBe(true);
    expect(sent.status).toBe(200);
    expect(state.faults.next("/generate")).toEqual({ type: "hang" });
    expect(() => handleFaultRoute(state, "/standin/faults", { fault: {} }, response)).toThrow(
      /fault.type: required/,
    );
    handleFaultRoute(state, "/standin/stall", {}, response);
    expect(state.outage.stalled).toBe(true);
    handleFaultRoute(state, "/standin/end_stall", undefined, response);
    expect(state.outage.stalled).toBe(false);
    expect(handleFaultRoute(state, "/generate", {}, response)).toBe(false);
  });

  it("should start an outage once its answer is sent, and refuse an unknown mode", () => {
    const state = bareState();
    const { response, finish } = recordingResponse();
    expect(() => handleFaultRoute(state, "/standin/outage", { mode: "down" }, response)).toThrow(
      'mode: must be "refuse" or "http-503"',
    );
    handleFaultRoute(state, "/standin/outage", { mode: "http-503" }, response);
    expect(state.outage.outage).toBeUndefined();
    finish();
    expect(state.outage.outage).toBe("http-503");
    state.outage.endOutage();
  });
});

describe("requireStringField", () => {
  it("should answer FastAPI's 422 for a missing or non-string field, and let a string (or an allowed number) through", () => {
    const { response, sent } = recordingResponse();
    expect(requireStringField({ model_path: "/m" }, "model_path", response)).toBe(false);
    expect(requireStringField({ new_version: 3 }, "new_version", response, { allowNumber: true })).toBe(
      false,
    );
    expect(sent.status).toBeUndefined();
    expect(requireStringField({}, "model_path", response)).toBe(true);
    expect(sent.status).toBe(422);
    expect(JSON.parse(sent.body!)).toEqual({
      detail: [{ type: "missing", loc: ["body", "model_path"], msg: "Field required", input: {} }],
    });
    requireStringField({ model_path: 1 }, "model_path", response);
    expect(JSON.parse(sent.body!).detail[0]).toMatchObject({ type: "string_type", input: 1 });
  });
});

describe("handleControlRoute", () => {
  it("should pause, continue and relabel the weights, and not serve other paths", async () => {
    const state = bareState();
    const { response, sent } = recordingResponse();
    expect(await handleControlRoute(state, "/pause_generation", { mode: "retract" }, response)).toBe(true);
    expect(state.scheduler.paused).toBe("retract");
    expect(await handleControlRoute(state, "/continue_generation", undefined, response)).toBe(true);
    expect(state.scheduler.paused).toBe(false);
    await handleControlRoute(state, "/update_weight_version", { new_version: "v2" }, response);
    expect(state.scheduler.weightVersion).toBe("v2");
    expect(JSON.parse(sent.body!)).toEqual({
      success: true,
      message: "Weight version updated to v2",
      new_version: "v2",
    });
    expect(await handleControlRoute(state, "/health", undefined, response)).toBe(false);
  });
});

describe("handleInfoRoute", () => {
  it("should answer /health and the model info, and not serve other paths", async () => {
    const state = bareState();
    const { response, sent } = recordingResponse();
    expect(await handleInfoRoute(state, "/health", response)).toBe(true);
    expect(sent.status).toBe(200);
    expect(await handleInfoRoute(state, "/model_info", response)).toBe(true);
    expect(JSON.parse(sent.body!)).toEqual(standinModelInfo(state));
    expect(standinModelInfo(state)).toMatchObject({
      weight_version: "default",
      has_image_understanding: false,
    });
    expect(await handleInfoRoute(state, "/flush_cache", response)).toBe(false);
  });
});

describe("parseStandinBody", () => {
  it("should parse JSON, keep non-JSON text, and read an empty body as undefined", () => {
    expect(parseStandinBody('{"a":1}')).toEqual({ a: 1 });
    expect(parseStandinBody("not json")).toBe("not json");
    expect(parseStandinBody("")).toBeUndefined();
  });
});
