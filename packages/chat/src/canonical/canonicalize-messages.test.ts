import { describe, expect, it } from "vitest";
import { CanonicalizationError } from "./canonicalization-error";
import { canonicalizeMessages, EMPTY_TOOL_RESULT } from "./canonicalize-messages";
import { canonicalizeState } from "./canonicalize-state";
import { canonicalizeTemplateKwargs, mergeTemplateKwargs } from "./canonicalize-template-kwargs";
import { canonicalizeTools, EMPTY_TOOL_PARAMETERS } from "./canonicalize-tools";
import { stableStringify } from "./stable-stringify";

function errorOf(fn: () => unknown): CanonicalizationError {
  try {
    fn();
  } catch (error) {
    if (CanonicalizationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a CanonicalizationError");
}

describe("canonicalizeMessages", () => {
  it("should canonicalise a tool-call loop", () => {
    const input = [
      {
        role: "developer",
        content: [
          { type: "text", text: "Be brief." },
          { type: "text", text: "Use tools." },
        ],
      },
      { role: "user", content: "Weather in 北京?", name: "alice" },
      {
        role: "assistant",
        content: null,
        reasoning_content: "",
        refusal: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"unit": "c", "city": "北京"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "" },
      { role: "assistant", content: "Sunny.", tool_calls: [] },
    ];
    const snapshot = structuredClone(input);
    expect(canonicalizeMessages(input)).toEqual([
      { role: "system", content: "Be brief.\n\nUse tools." },
      { role: "user", content: "Weather in 北京?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"北京","unit":"c"}' },
          },
        ],
      },
      { role: "tool", content: EMPTY_TOOL_RESULT, tool_call_id: "call_1" },
      { role: "assistant", content: "Sunny." },
    ]);
    expect(input).toEqual(snapshot);
  });

  it("should keep media parts and normalise image shapes", () => {
    expect(
      canonicalizeMessages([
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "https://x/cat.png", detail: "high" } },
            { type: "image_url", image_url: "data:image/png;base64,AAAA" },
            { type: "image", image: "https://x/dog.png" },
          ],
        },
      ]),
    ).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "https://x/cat.png" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          { type: "image_url", image_url: { url: "https://x/dog.png" } },
        ],
      },
    ]);
  });

  it("should keep a mid-conversation system message in place", () => {
    const messages = canonicalizeMessages([
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "system", content: "c" },
    ]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "system"]);
  });

  it("should keep reasoning-only and empty assistant turns", () => {
    expect(
      canonicalizeMessages([
        { role: "user", content: "q" },
        { role: "assistant", content: "", reasoning_content: "hmm" },
        { role: "assistant" },
      ]),
    ).toEqual([
      { role: "user", content: "q" },
      { role: "assistant", content: "", reasoning_content: "hmm" },
      { role: "assistant", content: "" },
    ]);
  });

  it.each([
    [{}, "messages", "must be a list of messages, got a object"],
    [[], "messages", "must contain at least one message"],
    [[null], "messages[0]", "must be a message object, got null"],
    [[{ role: "bot", content: "x" }], "messages[0].role", 'unsupported role "bot"'],
    [[{ content: "x" }], "messages[0].role", "unsupported role null"],
    [[{ role: "user", content: "" }], "messages[0].content", "must be non-empty"],
    [[{ role: "user" }], "messages[0].content", "must be non-empty"],
    [[{ role: "system", content: [] }], "messages[0].content", "must be non-empty"],
    [
      [{ role: "user", content: 5 }],
      "messages[0].content",
      "must be a string, a list of content parts or null",
    ],
    [
      [{ role: "user", content: [{ type: "audio" }] }],
      "messages[0].content[0].type",
      'unsupported content part type "audio"',
    ],
    [[{ role: "user", content: [{ type: "text" }] }], "messages[0].content[0].text", "must be a string"],
    [
      [{ role: "user", content: [{ type: "image_url", image_url: {} }] }],
      "messages[0].content[0].image_url.url",
      "must be a non-empty URL string",
    ],
    [
      [{ role: "user", content: "x", tool_calls: [] }],
      "messages[0].tool_calls",
      "only assistant messages may carry tool calls",
    ],
    [[{ role: "assistant", content: "x", tool_calls: {} }], "messages[0].tool_calls", "must be a list"],
    [
      [{ role: "assistant", content: "x", reasoning_content: 3 }],
      "messages[0].reasoning_content",
      "must be a string or null",
    ],
    [
      [{ role: "assistant", tool_calls: [{ type: "function", function: { name: "f", arguments: "{}" } }] }],
      "messages[0].tool_calls[0].id",
      "must be a non-empty string",
    ],
    [
      [
        {
          role: "assistant",
          tool_calls: [{ id: "a", type: "custom", function: { name: "f", arguments: "{}" } }],
        },
      ],
      "messages[0].tool_calls[0].type",
      'unsupported tool call type "custom"',
    ],
    [
      [{ role: "assistant", tool_calls: [{ id: "a", function: { name: "", arguments: "{}" } }] }],
      "messages[0].tool_calls[0].function.name",
      "must be a non-empty string",
    ],
    [
      [{ role: "assistant", tool_calls: [{ id: "a", function: { name: "f" } }] }],
      "messages[0].tool_calls[0].function.arguments",
      "is required",
    ],
    [
      [{ role: "assistant", tool_calls: [{ id: "a", function: { name: "f", arguments: "{bad" } }] }],
      "messages[0].tool_calls[0].function.arguments",
      "expected a string key",
    ],
    [[{ role: "tool", content: "x", tool_call_id: 7 }], "messages[0].tool_call_id", "must be a string"],
  ])("should reject %j at %s", (input, path, reason) => {
    const error = errorOf(() => canonicalizeMessages(input));
    expect(error.path).toBe(path);
    expect(error.param).toBe("messages");
    expect(error.message).toContain(reason);
  });
});

describe("canonicalizeTools", () => {
  it("should project function tools and drop the rest", () => {
    const dropped: unknown[] = [];
    const tools = canonicalizeTools(
      [
        {
          type: "function",
          function: {
            name: "f",
            description: null,
            parameters: { type: "object", properties: { b: {}, a: {} } },
            strict: true,
          },
        },
        { type: "web_search" },
        { type: "function", function: { name: "g", description: "G" } },
      ],
      { onDropped: (info) => dropped.push(info) },
    );
    expect(tools).toEqual([
      {
        type: "function",
        function: { name: "f", parameters: { type: "object", properties: { b: {}, a: {} } } },
      },
      { type: "function", function: { name: "g", description: "G", parameters: EMPTY_TOOL_PARAMETERS } },
    ]);
    expect(Object.keys((tools[0]!.function.parameters as { properties: object }).properties)).toEqual([
      "b",
      "a",
    ]);
    expect(dropped).toEqual([{ path: "tools[1]", type: "web_search" }]);
    expect(canonicalizeTools(undefined)).toEqual([]);
  });

  it("should reject duplicate names and bad shapes with paths", () => {
    expect(
      errorOf(() =>
        canonicalizeTools([
          { type: "function", function: { name: "f" } },
          { type: "function", function: { name: "f" } },
        ]),
      ).message,
    ).toBe('tools[1].function.name: duplicate tool name "f"');
    expect(errorOf(() => canonicalizeTools({})).message).toBe("tools: must be a list of tools, got a object");
    expect(
      errorOf(() => canonicalizeTools([{ type: "function", function: { name: "f", parameters: [] } }])).path,
    ).toBe("tools[0].function.parameters");
  });
});

describe("canonicalizeTemplateKwargs", () => {
  it("should sort keys recursively and keep values", () => {
    const kwargs = canonicalizeTemplateKwargs({ z: { b: 1, a: [2, 1] }, enable_thinking: false });
    expect(JSON.stringify(kwargs)).toBe('{"enable_thinking":false,"z":{"a":[2,1],"b":1}}');
  });

  it.each(["add_generation_prompt", "tokenize", "tools"])("should reject the reserved key %s", (key) => {
    const error = errorOf(() => canonicalizeTemplateKwargs({ [key]: true }));
    expect(error.path).toBe(`chat_template_kwargs.${key}`);
    expect(error.param).toBe("chat_template_kwargs");
  });

  it("should merge request kwargs over configured defaults", () => {
    expect(mergeTemplateKwargs({ enable_thinking: true, x: 1 }, { enable_thinking: false })).toEqual({
      enable_thinking: false,
      x: 1,
    });
  });
});

describe("stableStringify", () => {
  it("should match Python json.dumps(sort_keys=True, separators=(',', ':'), ensure_ascii=False)", () => {
    // python3 -c 'import json;print(json.dumps({"b":[1,2.5,None,True],"a":{"y":"é\n","x":"\u2028"}},sort_keys=True,separators=(",",":"),ensure_ascii=False))'
    expect(stableStringify({ b: [1, 2.5, null, true], a: { y: "é\n", x: "\u2028" } })).toBe(
      '{"a":{"x":"\u2028","y":"é\\n"},"b":[1,2.5,null,true]}',
    );
  });

  it("should reject values that are not JSON", () => {
    expect(() => stableStringify({ a: Number.POSITIVE_INFINITY })).toThrow(
      "value.a: number Infinity is not finite",
    );
    expect(() => stableStringify({ a: () => 1 })).toThrow("value.a: a function is not a JSON value");
  });
});

describe("canonicalizeState", () => {
  it("should give the same state for the same record in any key order", () => {
    const a = canonicalizeState({
      messages: [
        { role: "user", content: "x" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "1", type: "function", function: { name: "f", arguments: '{"b": 2, "a": 1}' } }],
        },
      ],
      tools: [{ type: "function", function: { name: "f", parameters: {} } }],
      chat_template_kwargs: { enable_thinking: false },
      defaultTemplateKwargs: { enable_thinking: true },
    });
    const b = canonicalizeState({
      chat_template_kwargs: { enable_thinking: false },
      tools: [{ function: { parameters: {}, name: "f" }, type: "function" }],
      messages: [
        { content: "x", role: "user" },
        { tool_calls: [{ function: { arguments: { a: 1, b: 2 }, name: "f" }, id: "1" }], role: "assistant" },
      ],
    });
    expect(stableStringify(a)).toBe(stableStringify(b));
    expect(a.chatTemplateKwargs).toEqual({ enable_thinking: false });
  });
});

describe("canonicalizeMessages: emptyArgumentsAsObject", () => {
  const echoed = (args: string) => [
    { role: "user", content: "what time is it?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "get_time", arguments: args } }],
    },
  ];

  it.each(["", " ", "\n\t "])("should read blank arguments %j as {} when asked", (args) => {
    expect(canonicalizeMessages(echoed(args), { emptyArgumentsAsObject: true })[1]).toEqual({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "call_1", type: "function", function: { name: "get_time", arguments: "{}" } }],
    });
  });

  it("should give the same messages as an explicit {}", () => {
    expect(canonicalizeMessages(echoed(""), { emptyArgumentsAsObject: true })).toEqual(
      canonicalizeMessages(echoed("{}")),
    );
  });

  it("should reject blank arguments by default, naming the field", () => {
    expect(() => canonicalizeMessages(echoed(""))).toThrow(
      expect.objectContaining({ path: "messages[1].tool_calls[0].function.arguments" }),
    );
  });

  it("should still reject arguments that are not blank and not JSON", () => {
    expect(() => canonicalizeMessages(echoed("x"), { emptyArgumentsAsObject: true })).toThrow(
      expect.objectContaining({ path: "messages[1].tool_calls[0].function.arguments" }),
    );
  });
});
