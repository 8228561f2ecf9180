import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@relax/rollout";
import { describe, expect, it } from "vitest";
import { readConfigFile, resolveConfig } from "./load-config";

const minimal = {
  promptData: "test/fixtures/data.jsonl",
  agentCommand: "node agent.js",
  enginePolicy: "policy.js",
};

describe("request-classes in the config file", () => {
  it("should read policies and rules with kebab-case keys and keep header names as written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-classes-"));
    const path = join(dir, "relax.yaml");
    writeFileSync(
      path,
      [
        "request-classes:",
        "  policies:",
        "    title: passthrough",
        "    subagent: train",
        "  builtin-rules: true",
        "  rules:",
        "    - class: summary",
        "      last-user: '^Summarise'",
        "      no-tools: true",
        "      headers:",
        "        X-Agent-Role: critic",
      ].join("\n"),
    );
    const config = resolveConfig(await readConfigFile(path), minimal);
    expect(config.requestClasses).toEqual({
      policies: { title: "passthrough", subagent: "train" },
      builtinRules: true,
      rules: [
        { class: "summary", lastUser: "^Summarise", noTools: true, headers: { "X-Agent-Role": "critic" } },
      ],
    });
  });

  it("should default to the built-in rules and policies", () => {
    expect(resolveConfig({}, minimal).requestClasses).toEqual({
      policies: {},
      rules: [],
      builtinRules: true,
    });
  });

  it("should name the key of an unknown class, policy or invalid regular expression", () => {
    const message = (requestClasses: unknown) => {
      try {
        resolveConfig({ requestClasses }, minimal);
      } catch (error) {
        if (ConfigError.isInstance(error)) return error.message;
        throw error;
      }
      throw new Error("expected a ConfigError");
    };
    expect(message({ policies: { title: "keep" } })).toMatch(/^--request-classes: /);
    expect(message({ rules: [{ class: "chitchat" }] })).toMatch(/^--request-classes: /);
    expect(message({ rules: [{ class: "title", system: "(" }] })).toMatch(
      /^--config: request-classes\.rules\[0\]\.system: invalid regular expression: /,
    );
  });
});

describe("--request-class-policy and --request-class-credit-path", () => {
  it("should fold the flag over the config file's policies, and keep the credit path", () => {
    const file = { requestClasses: { policies: { title: "passthrough", compaction: "record" } } };
    const config = resolveConfig(file, {
      ...minimal,
      requestClassPolicy: ["compaction=train", "subagent=train"],
      requestClassCreditPath: "./credit.mjs#credit",
    });
    expect(config.requestClasses.policies).toEqual({
      title: "passthrough",
      compaction: "train",
      subagent: "train",
    });
    expect(config.requestClassCreditPath).toBe("./credit.mjs#credit");
    // The config-file spelling of the flag: a list under `request-class-policy`.
    expect(resolveConfig({ requestClassPolicy: ["title=train"] }, minimal).requestClasses.policies).toEqual({
      title: "train",
    });
  });

  it("should refuse a malformed entry naming the flag", () => {
    expect(() => resolveConfig({}, { ...minimal, requestClassPolicy: ["compaction:train"] })).toThrow(
      /^--request-class-policy: "compaction:train" is not CLASS=POLICY/,
    );
  });
});
