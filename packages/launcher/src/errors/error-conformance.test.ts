import { describe, expect, it } from "vitest";
import * as launcher from "../index";
import { SpawnFailure } from "./spawn-failure";

// The literal global symbols of the Relax error contract, written out here on purpose: a test of the
// package's own constant would pass even if `@relax/chat`'s `RelaxError.isInstance` could not see them.
const relaxError = Symbol.for("relax.error");
const symbolOf = (name: string) => Symbol.for(`relax.error.${name}`);

const cases: Array<{ name: string; error: Error; ancestors: string[] }> = [
  {
    name: "LauncherError",
    error: new launcher.LauncherError({ name: "LauncherError", message: "m" }),
    ancestors: [],
  },
  {
    name: "AgentConfigError",
    error: new launcher.AgentConfigError({ path: "agentEnv[0]", message: "bad" }),
    ancestors: ["LauncherError"],
  },
  {
    name: "ReservedEnvKeyError",
    error: new launcher.ReservedEnvKeyError({ path: "agentEnv[0]", key: "RELAX_X" }),
    ancestors: ["LauncherError", "AgentConfigError"],
  },
  {
    name: "AgentExecutionError",
    error: new launcher.AgentExecutionError({ sessionId: "s", kind: "exit", summary: "exited" }),
    ancestors: ["LauncherError"],
  },
  {
    name: "AgentTimeoutError",
    error: new launcher.AgentTimeoutError({ sessionId: "s", timeoutMs: 1, activeMs: 2 }),
    ancestors: ["LauncherError", "AgentExecutionError"],
  },
  {
    name: "AgentTerminatedError",
    error: new launcher.AgentTerminatedError({ sessionId: "s", reason: "drop" }),
    ancestors: ["LauncherError"],
  },
  {
    name: "ReaperUnavailableError",
    error: new launcher.ReaperUnavailableError({ details: "x" }),
    ancestors: ["LauncherError"],
  },
  {
    name: "SessionInputError",
    error: new launcher.SessionInputError({ path: "input", message: "bad" }),
    ancestors: ["LauncherError"],
  },
  {
    name: "SessionOutputError",
    error: new launcher.SessionOutputError({ message: "bad" }),
    ancestors: ["LauncherError"],
  },
];

type ErrorClass = { isInstance(error: unknown): boolean };
const exported = Object.entries(launcher).filter(
  ([name, value]) => /^[A-Z]\w*(Error|Failure)$/.test(name) && typeof value === "function",
);

describe("@relax/launcher error contract", () => {
  it("should list every exported error class in this test", () => {
    expect(exported.map(([name]) => name).sort()).toEqual(cases.map((c) => c.name).sort());
  });

  it.each(cases)("should mark $name with the literal global symbols", ({ name, error, ancestors }) => {
    const record = error as unknown as Record<symbol, unknown>;
    expect(record[relaxError]).toBe(true);
    expect(record[symbolOf(name)]).toBe(true);
    for (const ancestor of ancestors) expect(record[symbolOf(ancestor)]).toBe(true);
    expect(error.name).toBe(name);
  });

  it.each(cases)("should recognise $name by isInstance from a foreign copy", ({ name }) => {
    const cls = (launcher as unknown as Record<string, ErrorClass>)[name]!;
    expect(cls.isInstance({ [relaxError]: true, [symbolOf(name)]: true })).toBe(true);
    expect(cls.isInstance(new Error("plain"))).toBe(false);
  });

  it("should mark the internal SpawnFailure (not exported) with the same symbols", () => {
    const record = new SpawnFailure({ message: "cannot start", errno: 2 }) as unknown as Record<
      symbol,
      unknown
    >;
    expect([record[relaxError], record[symbolOf("SpawnFailure")], record[symbolOf("LauncherError")]]).toEqual(
      [true, true, true],
    );
    expect(SpawnFailure.isInstance({ [relaxError]: true, [symbolOf("SpawnFailure")]: true })).toBe(true);
  });

  it("should not carry the old root marker", () => {
    const error = new launcher.AgentConfigError({ path: "x", message: "m" }) as unknown as Record<
      symbol,
      unknown
    >;
    expect(error[Symbol.for("relax.error.RelaxError")]).toBeUndefined();
  });
});
