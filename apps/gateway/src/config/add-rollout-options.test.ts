import { resolveConfig } from "@relax/runtime";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import {
  addAgentOptions,
  addDatasetOptions,
  addEngineOptions,
  addEvalOptions,
  addExportOptions,
  addGatewayOptions,
  addRolloutOptions,
  addRunOptions,
  addStepOptions,
  addTurnOptions,
  flagValues,
} from "./add-rollout-options";

function parseFlags(argv: string[]): Record<string, unknown> {
  const command = addRolloutOptions(new Command())
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  command.parse(argv, { from: "user" });
  return flagValues(command.opts());
}

const required = ["--prompt-data", "test/fixtures/data.jsonl", "--agent-command", "node a.js"];

describe("relax rollout flags", () => {
  it("should take several KEY=VALUE after one --agent-env, and repeated --agent-env flags", () => {
    expect(parseFlags(["--agent-env", "FOO=bar", "BAZ=qux", "--port", "8080"])).toEqual({
      agentEnv: ["FOO=bar", "BAZ=qux"],
      port: 8080,
    });
    expect(parseFlags(["--agent-env", "FOO=bar", "--agent-env", "BAZ=qux", "X=1"]).agentEnv).toEqual([
      "FOO=bar",
      "BAZ=qux",
      "X=1",
    ]);
    const config = resolveConfig(
      {},
      parseFlags([...required, "--engine-policy", "p.js", "--agent-env", "FOO=bar", "BAZ=qux"]),
    );
    expect(config.agentEnv).toEqual(["FOO=bar", "BAZ=qux"]);
  });

  it("should map the request-limit flags to their config keys", () => {
    const config = resolveConfig(
      {},
      parseFlags([
        ...required,
        "--engine-policy",
        "p.js",
        "--max-request-messages",
        "50000",
        "--max-request-content-parts",
        "60000",
        "--max-tool-schema-nodes",
        "70000",
        "--max-request-chars",
        "8388608",
        "--max-json-depth",
        "256",
        "--refusal-backoff-max-ms",
        "0",
      ]),
    );
    expect([
      config.maxRequestMessages,
      config.maxRequestContentParts,
      config.maxToolSchemaNodes,
      config.maxRequestChars,
      config.maxJsonDepth,
      config.refusalBackoffMaxMs,
    ]).toEqual([50_000, 60_000, 70_000, 8_388_608, 256, 0]);
  });

  it("should default --metadata-key to metadata and keep a given key", () => {
    expect(resolveConfig({}, parseFlags([...required, "--engine-policy", "p.js"])).metadataKey).toBe(
      "metadata",
    );
    expect(
      resolveConfig({}, parseFlags([...required, "--engine-policy", "p.js", "--metadata-key", "extra"]))
        .metadataKey,
    ).toBe("extra");
  });

  it("should honour structured output by default, off with --no-honor-response-format", () => {
    const honour = (argv: string[], file: Record<string, unknown> = {}) =>
      resolveConfig(file, parseFlags([...required, "--engine-policy", "p.js", ...argv])).honorResponseFormat;
    expect(parseFlags([])).toEqual({});
    expect(honour([])).toBe(true);
    expect(parseFlags(["--no-honor-response-format"])).toEqual({ honorResponseFormat: false });
    expect(honour(["--no-honor-response-format"])).toBe(false);
    expect(honour([], { honorResponseFormat: false })).toBe(false);
    expect(honour(["--honor-response-format"], { honorResponseFormat: false })).toBe(true);
  });

  it("should pass negated flags only when negated, and parse numbers and JSON", () => {
    expect(
      parseFlags(["--no-progress", "--rollout-top-k", "20", "--apply-chat-template-kwargs", '{"a":1}']),
    ).toEqual({
      progress: false,
      rolloutTopK: 20,
      applyChatTemplateKwargs: { a: 1 },
    });
    expect(parseFlags([])).toEqual({});
    expect(() => parseFlags(["--port", "x"])).toThrow('--port expects an integer, got "x"');
  });

  it("should read --eval-prompt-data as NAME PATH pairs, from one flag or repeated flags, in order", () => {
    const data = "test/fixtures/data.jsonl";
    const drift = "test/fixtures/drift.jsonl";
    expect(parseFlags(["--eval-prompt-data", "aime", data, "gsm8k", drift, "--port", "1"])).toEqual({
      evalPromptData: ["aime", data, "gsm8k", drift],
      port: 1,
    });
    const pairs = ["--eval-prompt-data", "aime", data, "gsm8k", drift];
    const repeated = ["--eval-prompt-data", "aime", data, "--eval-prompt-data", "gsm8k", drift];
    for (const flags of [pairs, repeated]) {
      expect(
        resolveConfig({}, parseFlags([...required, "--engine-policy", "p.js", ...flags])).evalPromptData,
      ).toEqual([
        { name: "aime", path: data },
        { name: "gsm8k", path: drift },
      ]);
    }
  });

  it("should name a single --eval-prompt-data PATH after its file stem", () => {
    const config = resolveConfig(
      {},
      parseFlags([...required, "--engine-policy", "p.js", "--eval-prompt-data", "test/fixtures/drift.jsonl"]),
    );
    expect(config.evalPromptData).toEqual([{ name: "drift", path: "test/fixtures/drift.jsonl" }]);
    expect(config.evalInterval).toBeUndefined();
    expect(config.skipEvalBeforeTrain).toBe(false);
  });

  it("should refuse bad --eval-prompt-data and --eval-interval values, naming the flag", () => {
    const resolve = (flags: string[]) => () =>
      resolveConfig({}, parseFlags([...required, "--engine-policy", "p.js", ...flags]));
    const data = "test/fixtures/data.jsonl";
    expect(resolve(["--eval-prompt-data", "aime", data, "gsm8k"])).toThrow(
      `--eval-prompt-data: expects PATH or NAME PATH pairs, got 3 values ("aime" "${data}" "gsm8k")`,
    );
    // Two paths without names read as one pair whose name is a file: say so instead of running it.
    expect(resolve(["--eval-prompt-data", data, "test/fixtures/drift.jsonl"])).toThrow(
      '--eval-prompt-data: dataset name "test/fixtures/data.jsonl" looks like a file; give NAME PATH pairs',
    );
    expect(resolve(["--eval-prompt-data", "data.jsonl", data])).toThrow(
      '--eval-prompt-data: dataset name "data.jsonl" looks like a file; give NAME PATH pairs',
    );
    expect(resolve(["--eval-prompt-data", "my set", data])).toThrow(
      '--eval-prompt-data: dataset name "my set" must be letters, digits, "_", "-" or "." (it prefixes eval/<name>/ metrics)',
    );
    expect(resolve(["--eval-prompt-data", "aime", data, "aime", data])).toThrow(
      '--eval-prompt-data: dataset name "aime" is given twice',
    );
    expect(resolve(["--eval-prompt-data", "aime", "missing/aime.jsonl"])).toThrow(
      '--eval-prompt-data: dataset "aime": no such file: missing/aime.jsonl',
    );
    expect(resolve(["--eval-interval", "2"])).toThrow(
      "--eval-interval: there is no eval dataset to run; add --eval-prompt-data",
    );
    expect(resolve(["--eval-prompt-data", data, "--eval-interval", "0"])).toThrow("--eval-interval: ");
    expect(() => parseFlags(["--eval-interval", "x"])).toThrow('--eval-interval expects an integer, got "x"');
  });

  it("should take --eval-interval, --skip-eval-before-train, --eval-input-key, --eval-function-path and the --eval-* sampling flags", () => {
    const config = resolveConfig(
      {},
      parseFlags([
        ...required,
        "--engine-policy",
        "p.js",
        "--eval-prompt-data",
        "test/fixtures/data.jsonl",
        "--eval-interval",
        "3",
        "--skip-eval-before-train",
        "--eval-input-key",
        "problem",
        "--eval-temperature",
        "0",
        "--eval-top-p",
        "0.5",
        "--eval-top-k",
        "3",
        "--eval-max-response-len",
        "99",
        "--eval-function-path",
        "./eval.mjs#score",
      ]),
    );
    expect(config).toMatchObject({
      evalInterval: 3,
      skipEvalBeforeTrain: true,
      evalInputKey: "problem",
      evalTemperature: 0,
      evalTopP: 0.5,
      evalTopK: 3,
      evalMaxResponseLen: 99,
      evalFunctionPath: "./eval.mjs#score",
    });
  });

  it("should list the new forms in --help", () => {
    const help = addRolloutOptions(new Command("rollout")).helpInformation();
    expect(help).toContain("--agent-env <KEY=VALUE...>");
    expect(help).toContain("(default metadata)");
    expect(help).toContain("--eval-prompt-data <NAME PATH...>");
    expect(help).toContain("--eval-interval <n>");
    expect(help).toContain("--skip-eval-before-train");
    expect(help).toContain("ceil(agentic concurrency × n-samples-per-prompt / n-samples-per-eval-prompt)");
  });
});

describe("relax rollout option groups", () => {
  const flags = (add: (command: Command) => Command) =>
    add(new Command()).options.map((option) => option.long);

  it("should add every flag exactly once, the groups in order making up addRolloutOptions", () => {
    const groups = [
      addDatasetOptions,
      addStepOptions,
      addEvalOptions,
      addAgentOptions,
      addEngineOptions,
      addTurnOptions,
      addExportOptions,
      addGatewayOptions,
      addRunOptions,
    ].map(flags);
    const all = flags(addRolloutOptions);
    expect(groups.flat()).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
  });

  it("should put each flag in its group", () => {
    expect(flags(addDatasetOptions)).toContain("--prompt-data");
    expect(flags(addStepOptions)).toContain("--fully-async");
    expect(flags(addEvalOptions)).toContain("--eval-interval");
    expect(flags(addAgentOptions)).toContain("--agent-sandbox");
    expect(flags(addEngineOptions)).toContain("--sglang-url");
    expect(flags(addTurnOptions)).toContain("--rollout-temperature");
    expect(flags(addExportOptions)).toContain("--custom-rm-path");
    expect(flags(addGatewayOptions)).toContain("--gateway-shards");
    expect(flags(addRunOptions)).toContain("--run-dir");
  });
});
