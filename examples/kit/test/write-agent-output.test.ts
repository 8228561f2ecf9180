import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentSessionError, writeAgentOutput } from "../src/index";

const dir = mkdtempSync(join(tmpdir(), "kit-output-"));

describe("writeAgentOutput", () => {
  it("should write the implicit output as one JSON object", () => {
    const file = join(dir, "implicit.json");
    writeAgentOutput({ outputPath: file, output: { metadata: { task_success: 1.0 }, reward: 1.0 } });
    expect(readFileSync(file, "utf8")).toBe('{"metadata":{"task_success":1},"reward":1}');
  });

  it("should write explicit records as JSONL, one line per context", () => {
    const file = join(dir, "records.jsonl");
    writeAgentOutput({
      outputPath: file,
      output: [
        { name: "main", messages: [{ role: "user", content: "q" }], metadata: { role: "main" }, reward: 1 },
        { name: "searcher_0", messages: [{ role: "user", content: "s" }] },
      ],
    });
    expect(readFileSync(file, "utf8")).toBe(
      '{"name":"main","messages":[{"role":"user","content":"q"}],"metadata":{"role":"main"},"reward":1}\n' +
        '{"name":"searcher_0","messages":[{"role":"user","content":"s"}]}\n',
    );
  });

  it("should print to stdout when there is no output path", () => {
    let printed = "";
    writeAgentOutput({
      outputPath: undefined,
      output: { reward: 0 },
      stdout: { write: (text: string) => (printed += text) },
    });
    expect(printed).toBe('{"reward":0}\n');
  });

  it("should refuse duplicate and empty record names", () => {
    const write = (names: string[]) => () =>
      writeAgentOutput({
        outputPath: join(dir, "bad.jsonl"),
        output: names.map((name) => ({ name, messages: [] })),
      });
    expect(write(["main", "main"])).toThrow('records[1].name: duplicate name "main"');
    expect(write([""])).toThrow(AgentSessionError);
  });
});
