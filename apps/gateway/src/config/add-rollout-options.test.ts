import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { addRolloutOptions, flagValues } from "./add-rollout-options";
import { resolveConfig } from "./load-config";

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

  it("should default --metadata-key to metadata and keep a given key", () => {
    expect(resolveConfig({}, parseFlags([...required, "--engine-policy", "p.js"])).metadataKey).toBe(
      "metadata",
    );
    expect(
      resolveConfig({}, parseFlags([...required, "--engine-policy", "p.js", "--metadata-key", "extra"]))
        .metadataKey,
    ).toBe("extra");
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

  it("should list the new forms in --help", () => {
    const help = addRolloutOptions(new Command("rollout")).helpInformation();
    expect(help).toContain("--agent-env <KEY=VALUE...>");
    expect(help).toContain("(default metadata)");
  });
});
