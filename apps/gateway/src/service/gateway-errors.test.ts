import {
  GatePauseCancelledError,
  GatePauseTimeoutError,
  GenerationAbortedError,
  GroupDroppedError,
  SessionNotFoundError,
} from "@relax/agent-api";
import { RelaxError } from "@relax/chat";
import {
  ConfigError,
  ControlError,
  DatasetError,
  RolloutInterruptedError,
  RolloutStalledError,
  UnknownEvalDatasetError,
} from "@relax/rollout";
import { describe, expect, it } from "vitest";
import * as gateway from "../index";
import { BackendUnavailableError } from "../run-rollout";

// The literal global symbols of the Relax error contract, written out here on purpose: a test of the
// package's own constant would pass even if `@relax/protocol`'s error table could not see the errors.
const relaxError = Symbol.for("relax.error");
const symbolOf = (name: string) => Symbol.for(`relax.error.${name}`);

const cases: Array<{ name: string; error: Error; cls: { isInstance(error: unknown): boolean } }> = [
  {
    name: "SessionNotFoundError",
    error: new SessionNotFoundError({ sessionId: "s" }),
    cls: SessionNotFoundError,
  },
  {
    name: "GroupDroppedError",
    error: new GroupDroppedError({ reason: "agent_error", message: "m" }),
    cls: GroupDroppedError,
  },
  {
    name: "GenerationAbortedError",
    error: new GenerationAbortedError({ rid: "r", detail: "oom" }),
    cls: GenerationAbortedError,
  },
  { name: "ConfigError", error: new ConfigError({ message: "--x: bad" }), cls: ConfigError },
  {
    name: "DatasetError",
    error: new DatasetError({ file: "d.jsonl", line: 2, reason: "bad" }),
    cls: DatasetError,
  },
  {
    name: "RolloutInterruptedError",
    error: new RolloutInterruptedError({ message: "m" }),
    cls: RolloutInterruptedError,
  },
  { name: "RolloutStalledError", error: new RolloutStalledError({ message: "m" }), cls: RolloutStalledError },
  {
    name: "BackendUnavailableError",
    error: new BackendUnavailableError({ message: "m" }),
    cls: BackendUnavailableError,
  },
  {
    name: "ControlError",
    error: new ControlError({ code: "step_running", message: "m" }),
    cls: ControlError,
  },
  {
    name: "GatePauseTimeoutError",
    error: new GatePauseTimeoutError({ timeoutMs: 10, generating: 1 }),
    cls: GatePauseTimeoutError,
  },
  { name: "GatePauseCancelledError", error: new GatePauseCancelledError(), cls: GatePauseCancelledError },
  {
    name: "UnknownEvalDatasetError",
    error: new UnknownEvalDatasetError({ names: ["aime"], known: ["gsm8k"] }),
    cls: UnknownEvalDatasetError,
  },
];

describe("gateway error contract", () => {
  it("should cover every error class exported from the package root", () => {
    const exported = Object.keys(gateway).filter((name) => /^[A-Z]\w*Error$/.test(name));
    const covered = new Set(cases.map((c) => c.name));
    expect(exported.filter((name) => !covered.has(name))).toEqual([]);
  });

  it.each(cases)("should mark $name with the literal global symbols", ({ name, error, cls }) => {
    const record = error as unknown as Record<symbol, unknown>;
    expect(record[relaxError]).toBe(true);
    expect(record[symbolOf(name)]).toBe(true);
    expect(error.name).toBe(name);
    expect(RelaxError.isInstance(error)).toBe(true);
    expect(cls.isInstance({ [relaxError]: true, [symbolOf(name)]: true })).toBe(true);
    expect(cls.isInstance(new Error("plain"))).toBe(false);
  });

  it("should write the messages the callers read", () => {
    expect(new SessionNotFoundError({ sessionId: "s-1" }).message).toBe(
      "session s-1 is unknown or already closed",
    );
    expect(new GenerationAbortedError({ rid: "r", detail: "oom" }).message).toBe(
      "the inference backend aborted the generation: oom",
    );
    expect(new DatasetError({ file: "d.jsonl", line: 2, reason: "bad" }).message).toBe("d.jsonl:2: bad");
    expect(new UnknownEvalDatasetError({ names: ["aime"], known: [] }).message).toBe(
      'unknown eval dataset(s) "aime"; known: none (no --eval-prompt-data)',
    );
  });
});
