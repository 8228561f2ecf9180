import { describe, expect, it } from "vitest";
import { AgentConfigError } from "../errors/agent-config-error";
import { ReservedEnvKeyError } from "../errors/reserved-env-key-error";
import { assertNoReservedEnvKeys, parseAgentEnv } from "./parse-agent-env";

describe("parseAgentEnv", () => {
  it("should split KEY=VALUE at the first '=' and let the last duplicate win", () => {
    const env = parseAgentEnv(["FOO=bar", "URL=http://h/?a=b", "EMPTY=", "FOO=baz"]);
    expect(env).toEqual({ URL: "http://h/?a=b", EMPTY: "", FOO: "baz" });
    expect(Object.keys(env)).toEqual(["URL", "EMPTY", "FOO"]);
  });

  it("should accept a record", () => {
    expect(parseAgentEnv({ A: "1", _B2: "two" })).toEqual({ A: "1", _B2: "two" });
  });

  it("should reject reserved RELAX_ keys with a typed error naming the entry", () => {
    const error = (() => {
      try {
        parseAgentEnv(["OK=1", "RELAX_SESSION_ID=x"]);
      } catch (caught) {
        return caught;
      }
    })();
    expect(ReservedEnvKeyError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ key: "RELAX_SESSION_ID", path: "agentEnv[1]" });
    expect(() => parseAgentEnv({ RELAX_ANYTHING: "1" }, { path: "env" })).toThrow(
      "env.RELAX_ANYTHING: RELAX_ANYTHING uses the reserved RELAX_ prefix",
    );
    expect(() => assertNoReservedEnvKeys({ RELAX_X: "" }, "harness.env")).toThrow(ReservedEnvKeyError);
    expect(parseAgentEnv(["relax_lowercase=1", "MY_RELAX_X=2"])).toEqual({
      relax_lowercase: "1",
      MY_RELAX_X: "2",
    });
  });

  it("should reject malformed entries with their index", () => {
    expect(() => parseAgentEnv(["A=1", "JUSTKEY"])).toThrow('agentEnv[1]: expected KEY=VALUE, got "JUSTKEY"');
    expect(() => parseAgentEnv(["=value"])).toThrow('agentEnv[0]: invalid variable name ""');
    expect(() => parseAgentEnv(["1ABC=x"])).toThrow('agentEnv[0]: invalid variable name "1ABC"');
    expect(() => parseAgentEnv(["A-B=x"])).toThrow(AgentConfigError);
    expect(() => parseAgentEnv(["A=x\0y"])).toThrow("agentEnv[0]: value contains a NUL byte");
    expect(() => parseAgentEnv([5 as never])).toThrow("agentEnv[0]: expected a KEY=VALUE string");
    expect(() => parseAgentEnv({ A: 1 as never })).toThrow("agentEnv.A: expected a string value, got number");
  });
});
