import { describe, expect, it } from "vitest";
import { SessionOutputError } from "../errors/session-output-error";
import { parseSessionOutput } from "./parse-session-output";

const user = { role: "user", content: "..." };
const assistant = { role: "assistant", content: "..." };

function parseError(text: string): SessionOutputError {
  try {
    parseSessionOutput(text);
  } catch (error) {
    if (SessionOutputError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a SessionOutputError");
}

describe("parseSessionOutput", () => {
  it("should treat empty and whitespace-only text as an implicit export", () => {
    for (const text of ["", "  \n\t\n", "\ufeff"]) {
      expect(parseSessionOutput(text)).toEqual({ output: { kind: "implicit" }, warnings: [] });
    }
  });

  it("should read a JSON object without messages as implicit {metadata, reward}", () => {
    expect(parseSessionOutput('{"metadata": {"task_success": 1.0}, "reward": 1.0}')).toEqual({
      output: { kind: "implicit", metadata: { task_success: 1 }, reward: 1 },
      warnings: [],
    });
    expect(parseSessionOutput('{"reward": {"score": 0.5, "format_ok": 1}}').output).toEqual({
      kind: "implicit",
      reward: { score: 0.5, format_ok: 1 },
    });
    expect(parseSessionOutput('{"reward": null, "metadata": null}').output).toEqual({
      kind: "implicit",
      reward: null,
    });
    expect(parseSessionOutput("{}").output).toEqual({ kind: "implicit" });
  });

  it("should warn about unknown keys without failing", () => {
    expect(parseSessionOutput('{"reward": 1, "score": 2}')).toEqual({
      output: { kind: "implicit", reward: 1 },
      warnings: [{ line: null, key: "score", message: 'unknown key "score" ignored' }],
    });
    const jsonl = [
      JSON.stringify({ name: "main", messages: [user, assistant], extra: true }),
      JSON.stringify({ name: "side", messages: [user], note: "x" }),
    ].join("\n");
    expect(parseSessionOutput(jsonl).warnings).toEqual([
      { line: 1, key: "extra", message: 'unknown key "extra" ignored (line 1)' },
      { line: 2, key: "note", message: 'unknown key "note" ignored (line 2)' },
    ]);
  });

  it("should read a JSON object with messages as one explicit record, pretty-printed or not", () => {
    const record = {
      name: "main",
      messages: [user, assistant],
      tools: [{ type: "function", function: { name: "search", parameters: {} } }],
      chat_template_kwargs: { enable_thinking: false },
      metadata: { role: "main" },
      reward: 1,
    };
    const expected = { output: { kind: "records", records: [{ ...record, line: 1 }] }, warnings: [] };
    expect(parseSessionOutput(JSON.stringify(record))).toEqual(expected);
    expect(parseSessionOutput(JSON.stringify(record, null, 2))).toEqual(expected);
  });

  it("should read JSONL records (a multi-context example), skipping blank lines and CRLF", () => {
    const lines = [
      '{"name":"main","messages":[{"role":"user","content":"..."},{"role":"assistant","content":"..."}],"metadata":{"role":"main","outcome":1.0},"reward":1.0}',
      "",
      '{"name":"searcher_0","messages":[{"role":"user","content":"..."},{"role":"assistant","content":"..."}],"metadata":{"role":"searcher","outcome":1.0}}\r',
      '{"name":"searcher_1","messages":[{"role":"user","content":"..."},{"role":"assistant","content":"..."}],"metadata":{"role":"searcher","outcome":1.0},"reward":null,"tools":null}',
      "",
    ];
    expect(parseSessionOutput(lines.join("\n"))).toEqual({
      output: {
        kind: "records",
        records: [
          {
            name: "main",
            messages: [user, assistant],
            metadata: { role: "main", outcome: 1 },
            reward: 1,
            line: 1,
          },
          {
            name: "searcher_0",
            messages: [user, assistant],
            metadata: { role: "searcher", outcome: 1 },
            line: 3,
          },
          {
            name: "searcher_1",
            messages: [user, assistant],
            metadata: { role: "searcher", outcome: 1 },
            reward: null,
            line: 4,
          },
        ],
      },
      warnings: [],
    });
  });

  it("should reject a JSON array and non-object documents", () => {
    expect(parseError(JSON.stringify([{ name: "main", messages: [user] }])).message).toBe(
      "invalid session output: a JSON array is not a session output; write one JSON object, or JSONL records (one object per line)",
    );
    expect(parseError("42").message).toBe(
      "invalid session output: expected a JSON object or JSONL records, got a number",
    );
    expect(parseError('"done"').message).toContain("got a string");
  });

  it("should name the line of malformed JSON", () => {
    const error = parseError(
      `${JSON.stringify({ name: "a", messages: [user] })}\n{"name": "b", "messages": [}\n`,
    );
    expect(error.line).toBe(2);
    expect(error.path).toBeNull();
    expect(error.message).toMatch(/^invalid session output \(line 2\): malformed JSON \(/);
    expect(parseError("{not json").line).toBe(1);
  });

  it("should reject JSONL lines that are not records", () => {
    const error = parseError(`${JSON.stringify({ name: "a", messages: [user] })}\n[1,2]`);
    expect(error).toMatchObject({ line: 2, path: null });
    expect(error.message).toBe(
      "invalid session output (line 2): each JSONL line must be a record object, got an array",
    );
  });

  it("should reject duplicate and empty names, naming line and field", () => {
    const duplicate = parseError(
      [
        { name: "main", messages: [user] },
        { name: "side", messages: [user] },
        { name: "main", messages: [user] },
      ]
        .map((record) => JSON.stringify(record))
        .join("\n"),
    );
    expect(duplicate).toMatchObject({ line: 3, path: "name" });
    expect(duplicate.message).toBe(
      'invalid session output (line 3, field name): duplicate name "main" (first used on line 1); names must be unique within a session',
    );
    for (const name of ["", "   "]) {
      const empty = parseError(JSON.stringify({ name, messages: [user] }));
      expect(empty).toMatchObject({ line: 1, path: "name" });
      expect(empty.message).toBe("invalid session output (line 1, field name): must be a non-empty string");
    }
  });

  it("should validate every record field with its path", () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ messages: [user] }, "name", "is required"],
      [{ name: 3, messages: [user] }, "name", "expected a string, got a number"],
      [{ name: "a", messages: [] }, "messages", "must hold at least one message"],
      [{ name: "a", messages: "hi" }, "messages", "expected an array, got a string"],
      [{ name: "a", messages: [user, 5] }, "messages[1]", "expected an object, got a number"],
      [{ name: "a", messages: [user], tools: {} }, "tools", "expected an array, got an object"],
      [
        { name: "a", messages: [user], chat_template_kwargs: [] },
        "chat_template_kwargs",
        "expected an object, got an array",
      ],
      [{ name: "a", messages: [user], metadata: "x" }, "metadata", "expected an object, got a string"],
      [
        { name: "a", messages: [user], reward: "high" },
        "reward",
        "expected a number, an object or null, got a string",
      ],
    ];
    for (const [record, path, message] of cases) {
      const error = parseError(
        `{"name":"ok","messages":[{"role":"user","content":"x"}]}\n${JSON.stringify(record)}`,
      );
      expect(error.message).toBe(`invalid session output (line 2, field ${path}): ${message}`);
      expect({ line: error.line, path: error.path }).toEqual({ line: 2, path });
    }
    const implicit = parseError(JSON.stringify({ metadata: [1], reward: 1 }));
    expect(implicit.message).toBe(
      "invalid session output (line 1, field metadata): expected an object, got an array",
    );
  });
});

describe("parseSessionOutput: per-turn rewards", () => {
  it("should keep turn_rewards of an implicit output and of a record", () => {
    expect(parseSessionOutput('{"reward": 1, "turn_rewards": [0.5, null, 1]}').output).toEqual({
      kind: "implicit",
      reward: 1,
      turn_rewards: [0.5, null, 1],
    });
    const record = { name: "main", messages: [user, assistant], turn_rewards: { "0": 1 } };
    expect(parseSessionOutput(JSON.stringify(record)).output).toEqual({
      kind: "records",
      records: [{ name: "main", messages: [user, assistant], turn_rewards: { "0": 1 }, line: 1 }],
    });
    expect(parseSessionOutput('{"turn_rewards": [1]}').warnings).toEqual([]);
  });

  it("should name the field path of malformed turn_rewards", () => {
    const text = (value: unknown) => JSON.stringify({ reward: 1, turn_rewards: value });
    for (const [value, expected] of [
      [
        "1,2",
        /turn_rewards.*expected an array of numbers or nulls \(one per turn\) or an object keyed by turn index, got a string/,
      ],
      [true, /turn_rewards.*got a boolean/],
    ] as const) {
      const error = parseError(text(value));
      expect(error.path).toBe("turn_rewards");
      expect(error.message).toMatch(expected);
    }
  });
});
