import { GenerationGate } from "@relax/agent-api";
import { describe, expect, it } from "vitest";
import { bindBudgetsToGate } from "./bind-budgets-to-gate";

/** An engine whose aborts are recorded and answered at once. */
function fakeEngine() {
  const aborted: string[] = [];
  const abort = async (rid: string) => {
    aborted.push(rid);
    return [{ url: "http://w0", ok: true }];
  };
  return { aborted, abort };
}

describe("bindBudgetsToGate", () => {
  it("should pause the budgets while the gate is closed and resume them when it opens", async () => {
    const gate = new GenerationGate({ engine: fakeEngine() });
    const calls: string[] = [];
    const handle = (name: string) => ({
      pause: () => calls.push(`${name}.pause`),
      resume: () => calls.push(`${name}.resume`),
    });
    const unbind = bindBudgetsToGate(gate, [handle("a"), handle("b")]);
    expect(calls).toEqual([]);
    await gate.pause();
    expect(calls).toEqual(["a.pause", "b.pause"]);
    gate.resume();
    expect(calls).toEqual(["a.pause", "b.pause", "a.resume", "b.resume"]);
    unbind();
    await gate.pause();
    expect(calls).toHaveLength(4);
    // Bound while already paused: paused at once.
    bindBudgetsToGate(gate, [handle("c")]);
    expect(calls.at(-1)).toBe("c.pause");
  });
});
