import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { ShardProtocolError } from "../errors/shard-protocol-error";
import {
  type ControllerMessage,
  controllerMessageSchema,
  createIpcChannel,
  type ShardMessage,
  shardMessageSchema,
} from "./shard-protocol";

/** A fake IPC endpoint: what is sent is recorded; `deliver` plays a message from the other end. */
function fakeEndpoint() {
  const emitter = new EventEmitter();
  const sent: unknown[] = [];
  const endpoint = Object.assign(emitter, {
    connected: true,
    send: (message: unknown) => {
      sent.push(message);
      return true;
    },
    disconnect: () => {
      endpoint.connected = false;
      emitter.emit("disconnect");
    },
  });
  return { endpoint, sent, deliver: (message: unknown) => emitter.emit("message", message) };
}

describe("shard protocol", () => {
  it("should deliver valid messages and drop an invalid one with an error naming the type and the field", () => {
    const { endpoint, deliver } = fakeEndpoint();
    const invalid: ShardProtocolError[] = [];
    const channel = createIpcChannel<ControllerMessage, ShardMessage>(endpoint, shardMessageSchema, (error) =>
      invalid.push(error),
    );
    const received: ShardMessage[] = [];
    channel.onMessage((message) => received.push(message));
    deliver({ type: "ready", port: 40123 });
    deliver({ type: "ready", port: "40123" });
    deliver({ type: "state", sessions: [{ id: "g0-1-aaaaaa.s0", requests: -1 }] });
    deliver("not an object");
    expect(received).toEqual([{ type: "ready", port: 40123 }]);
    expect(invalid.map((error) => error.message)).toEqual([
      'invalid shard message "ready": port: Invalid input: expected number, received string',
      'invalid shard message "state": sessions.0.requests: Too small: expected number to be >=0; sessions.0.inflight: Invalid input: expected number, received undefined; sessions.0.generating: Invalid input: expected number, received undefined',
      "invalid shard message: (root): Invalid input: expected object, received string",
    ]);
  });

  it("should send in order, report the other end's disconnect once, and drop sends after it", () => {
    const { endpoint, sent } = fakeEndpoint();
    const channel = createIpcChannel<ControllerMessage, ShardMessage>(endpoint, shardMessageSchema, () => {});
    let closed = 0;
    channel.onClose(() => closed++);
    channel.send({ type: "step", step: 3 });
    channel.send({ type: "lease", id: "g3-0-abcdef.s1" });
    endpoint.disconnect();
    channel.send({ type: "shutdown" });
    expect(sent).toEqual([
      { type: "step", step: 3 },
      { type: "lease", id: "g3-0-abcdef.s1" },
    ]);
    expect(closed).toBe(1);
    // A listener registered after the close is told at once.
    channel.onClose(() => closed++);
    expect(closed).toBe(2);
  });

  it("should refuse controller messages with unknown fields or a missing credential", () => {
    expect(
      controllerMessageSchema.safeParse({
        type: "open",
        id: "g0-0-aaaaaa.s0",
        credential: "",
        groupId: "g0-0-aaaaaa",
        mode: "train",
        forest: {},
      }).success,
    ).toBe(false);
    expect(controllerMessageSchema.safeParse({ type: "lease", id: "x", extra: 1 }).success).toBe(false);
    expect(controllerMessageSchema.safeParse({ type: "pause", seq: 1, timeoutMs: 500 }).success).toBe(true);
  });
});
