import { describe, expect, it } from "vitest";
import { AgentConfigError } from "../errors/agent-config-error";
import {
  DEFAULT_INHERITED_ENV,
  findSecretLookingNames,
  parseAgentEnvInherit,
  selectInheritedEnv,
} from "./agent-env-policy";

const env = {
  PATH: "/usr/bin",
  HOME: "/root",
  LANG: "C.UTF-8",
  LC_ALL: "C",
  LC_CTYPE: "C",
  TZ: "UTC",
  HF_TOKEN: "hf_secret",
  OPENAI_API_KEY: "sk-secret",
  AWS_SECRET_ACCESS_KEY: "aws",
  PYTHONPATH: "/opt/lib",
  RELAX_SESSION_ID: "stale",
  UNSET: undefined,
};

describe("--agent-env-inherit", () => {
  it("should parse all, none and name lists with PREFIX* and default", () => {
    expect(parseAgentEnvInherit("all")).toBe("all");
    expect(parseAgentEnvInherit(" none ")).toBe("none");
    expect(parseAgentEnvInherit("default,PYTHONPATH, HF_*")).toEqual(["default", "PYTHONPATH", "HF_*"]);
  });

  it("should reject an empty value, a bad name, and all/none mixed with names, naming the entry", () => {
    expect(() => parseAgentEnvInherit("")).toThrow(
      "agentEnvInherit: expected all, none or a comma-separated list of names",
    );
    const bad = (() => {
      try {
        parseAgentEnvInherit("PATH,1BAD", { path: "--agent-env-inherit" });
      } catch (error) {
        return error;
      }
    })();
    expect(AgentConfigError.isInstance(bad)).toBe(true);
    expect((bad as AgentConfigError).path).toBe("--agent-env-inherit[1]");
    expect((bad as Error).message).toBe(
      '--agent-env-inherit[1]: expected a variable name or PREFIX*, got "1BAD"',
    );
    expect(() => parseAgentEnvInherit("all,PATH")).toThrow(
      "agentEnvInherit[0]: all cannot be combined with names",
    );
  });

  it("should pass only the safe set by default, never RELAX_* nor secrets", () => {
    expect(DEFAULT_INHERITED_ENV).toEqual([
      "PATH",
      "HOME",
      "USER",
      "LOGNAME",
      "SHELL",
      "LANG",
      "LANGUAGE",
      "LC_*",
      "TZ",
      "TERM",
      "TMPDIR",
    ]);
    expect(selectInheritedEnv(env)).toEqual({
      PATH: "/usr/bin",
      HOME: "/root",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      LC_CTYPE: "C",
      TZ: "UTC",
    });
    expect(selectInheritedEnv(env, "none")).toEqual({});
    expect(selectInheritedEnv(env, ["default", "PYTHONPATH", "HF_*"])).toEqual({
      PATH: "/usr/bin",
      HOME: "/root",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      LC_CTYPE: "C",
      TZ: "UTC",
      HF_TOKEN: "hf_secret",
      PYTHONPATH: "/opt/lib",
    });
    const all = selectInheritedEnv(env, "all");
    expect(Object.keys(all).sort()).toEqual(
      Object.keys(env)
        .filter((key) => key !== "RELAX_SESSION_ID" && key !== "UNSET")
        .sort(),
    );
  });

  it("should name (never show) secret-looking variables", () => {
    expect(findSecretLookingNames(env)).toEqual(["AWS_SECRET_ACCESS_KEY", "HF_TOKEN", "OPENAI_API_KEY"]);
    expect(
      findSecretLookingNames({
        GITHUB_PAT: "x",
        DB_PASSWORD: "y",
        MY_CREDENTIALS: "z",
        PATH: "/bin",
        PWD: "/",
      }),
    ).toEqual(["DB_PASSWORD", "GITHUB_PAT", "MY_CREDENTIALS"]);
    expect(findSecretLookingNames(selectInheritedEnv(env))).toEqual([]);
  });
});
