import { BackendUnavailableError } from "@relax/agent-api";
import { TokenizerLoadError, UnknownParserError } from "@relax/chat";
import { ExportConfigError, FunctionLoadError } from "@relax/export";
import { ConfigError, DatasetError, RolloutInterruptedError, RolloutStalledError } from "@relax/rollout";
import { ViewInputError } from "@relax/view";
import { describe, expect, it } from "vitest";
import { reportCliError } from "./report-cli-error";

describe("reportCliError", () => {
  it.each([
    ["BackendUnavailableError", new BackendUnavailableError({ message: "engine down" })],
    ["RolloutStalledError", new RolloutStalledError({ message: "every Group failed" })],
    ["DatasetError", new DatasetError({ file: "data.jsonl", line: 3, reason: "not JSON" })],
    ["FunctionLoadError", new FunctionLoadError({ spec: "./reward.js", reason: "no export" })],
    ["TokenizerLoadError", new TokenizerLoadError({ file: "tok.json", reason: "not_found" })],
    [
      "UnknownParserError",
      new UnknownParserError({ parserKind: "tool_call", parserName: "nope", validNames: ["qwen25"] }),
    ],
    ["ViewInputError", new ViewInputError("dump.json: groups: is required")],
  ] as const)("should end a %s with its message alone and exit 1", (_, error) => {
    expect(reportCliError(error)).toEqual({ text: `relax: ${error.message}\n`, exitCode: 1 });
  });

  it("should print the stack of a failure under RELAX_DEBUG", () => {
    const error = new BackendUnavailableError({ message: "engine down" });
    expect(reportCliError(error, { debug: true })).toEqual({ text: `relax: ${error.stack}\n`, exitCode: 1 });
  });

  it.each([
    ["ConfigError", new ConfigError({ message: "--foo: unknown flag" })],
    [
      "ExportConfigError",
      new ExportConfigError({
        issues: [{ severity: "error", code: "missing", path: "reward", message: "missing" }],
      }),
    ],
  ] as const)("should end a %s as an invalid configuration with exit 2", (_, error) => {
    expect(reportCliError(error, { debug: true })).toEqual({
      text: `relax: invalid configuration\n${error.message}\n`,
      exitCode: 2,
    });
  });

  it("should end an interrupted run with the signal's exit code", () => {
    const error = new RolloutInterruptedError({ message: "interrupted at step 2" });
    expect(reportCliError(error)).toEqual({ text: "relax: interrupted at step 2\n", exitCode: 130 });
    expect(reportCliError(error, { interruptExitCode: 143 }).exitCode).toBe(143);
  });

  it("should go by the contract, not the name: a bug named like a known error prints its stack", () => {
    const impostor = Object.assign(new Error("looks known"), { name: "ConfigError" });
    expect(reportCliError(impostor)).toEqual({ text: `relax: ${impostor.stack}\n`, exitCode: 1 });
    const forged = Object.assign(new Error("forged"), { [Symbol.for("relax.error.exit")]: "exit-now" });
    expect(reportCliError(forged).text).toContain("at ");
    expect(reportCliError("a string")).toEqual({ text: "relax: a string\n", exitCode: 1 });
  });

  it("should read a category declared by a copy of a package it never imported", () => {
    const foreign = Object.assign(new Error("bad key"), { [Symbol.for("relax.error.exit")]: "config" });
    expect(reportCliError(foreign)).toEqual({ text: "relax: invalid configuration\nbad key\n", exitCode: 2 });
  });
});
