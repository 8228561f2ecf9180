import type { SessionForest } from "@relax/forest";
import { describe, expect, it } from "vitest";
import { GatewaySession } from "./gateway-session";
import { SessionRegistry } from "./session-registry";

const forest = { stats: () => ({ nodes: 0 }) } as unknown as SessionForest;
const session = (id: string, credential: string) =>
  new GatewaySession({ id, credential, groupId: "g", mode: "train", forest });

describe("SessionRegistry", () => {
  it("should authenticate by credential only, never by the label", () => {
    const registry = new SessionRegistry();
    const a = session("g0-0-abc.s0", "0123456789abcdef0123456789abcdef");
    registry.add(a);
    expect(registry.get("0123456789abcdef0123456789abcdef")).toBe(a);
    expect(registry.get("g0-0-abc.s0")).toBeUndefined();
    expect(registry.get("0123456789abcdef0123456789abcdee")).toBeUndefined();
    expect(registry.get("")).toBeUndefined();
    expect(registry.getById("g0-0-abc.s0")).toBe(a);
    expect(registry.size).toBe(1);
  });

  it("should refuse a duplicate id or credential, and forget both on remove (then closed)", () => {
    const registry = new SessionRegistry();
    const a = session("s0", "c".repeat(32));
    registry.add(a);
    expect(() => registry.add(session("s0", "d".repeat(32)))).toThrow("session s0 is already registered");
    expect(() => registry.add(session("s1", "c".repeat(32)))).toThrow("session s1 is already registered");
    registry.remove("s0", "group finished");
    expect(a.state).toBe("closed");
    expect(registry.get("c".repeat(32))).toBeUndefined();
    expect(registry.getById("s0")).toBeUndefined();
    expect(registry.size).toBe(0);
    registry.add(session("s1", "c".repeat(32))); // both free again
    expect(registry.get("c".repeat(32))?.id).toBe("s1");
  });

  it("should report each removed session's id once (to close its engine session)", () => {
    const removed: string[] = [];
    const registry = new SessionRegistry({ onRemove: (id) => removed.push(id) });
    registry.add(session("s0", "e".repeat(32)));
    registry.add(session("s1", "f".repeat(32)));
    registry.remove("s1");
    registry.remove("s1");
    registry.remove("unknown");
    expect(removed).toEqual(["s1"]);
    expect(registry.getById("s0")?.id).toBe("s0");
  });
});
