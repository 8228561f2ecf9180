import type { CanonicalRequest, ChatMessage } from "@relax/chat";
import { describe, expect, it } from "vitest";
import {
  type ClassifiableRequest,
  createRequestClassifier,
  DEFAULT_CLASS_POLICIES,
  detectHarness,
  parseRequestClassPolicies,
} from "./classify-request";

const tool = { type: "function" as const, function: { name: "Write", parameters: { type: "object" } } };
const req = (
  path: string,
  headers: Record<string, string>,
  messages: ChatMessage[],
  extra: Partial<Pick<CanonicalRequest, "tools" | "model" | "maxTokens" | "stream">> = {},
): ClassifiableRequest => ({
  path,
  headers,
  request: { messages, tools: extra.tools ?? [], stream: extra.stream ?? true, ...extra },
});
const sys = (content: string): ChatMessage => ({ role: "system", content });
const user = (content: string): ChatMessage => ({ role: "user", content });
const assistant = (content: string): ChatMessage => ({ role: "assistant", content });

const claude = { "x-claude-code-session-id": "9b1c", "anthropic-beta": "claude-code-20250219,oauth" };
const codex = { originator: "codex_exec", "session-id": "019a" };
const opencode = { "user-agent": "opencode/1.18.33 ai-sdk/provider-utils", "x-session-affinity": "ses_1" };
const qwenOpening = [
  user("This is the Qwen Code. We are setting up the context for our chat."),
  assistant("Got it. Thanks for the context!"),
];

// Requests as the reference (shared harness-requests notes) and examples/harness-tests observed them.
const table: Array<[string, ClassifiableRequest, string, string]> = [
  [
    "Claude Code main loop",
    req("/agentic_api/v1/messages", claude, [sys("You are Claude Code…"), user("create hello.txt")], {
      tools: [tool],
    }),
    "claude-code",
    "main",
  ],
  [
    "Claude Code title",
    req(
      "/agentic_api/v1/messages",
      claude,
      [
        sys("Generate a concise, sentence-case title (3-7 words) that captures the main topic"),
        user("<session>create hello.txt</session>"),
      ],
      {},
    ),
    "claude-code",
    "title",
  ],
  [
    "Claude Code quota probe",
    req("/v1/messages", claude, [user("quota")], { maxTokens: 1 }),
    "claude-code",
    "probe",
  ],
  [
    "Claude Code /compact",
    req("/v1/messages", claude, [
      sys("You are a helpful AI assistant tasked with summarizing conversations."),
      user("create hello.txt"),
      assistant("done"),
      user("Your task is to create a detailed summary of the conversation so far"),
    ]),
    "claude-code",
    "compaction",
  ],
  [
    "count_tokens",
    req("/v1/messages/count_tokens", claude, [user("x")], { tools: [tool] }),
    "claude-code",
    "probe",
  ],
  [
    "Codex main loop",
    req("/v1/responses", codex, [sys("You are Codex"), sys("skills"), user("<environment_context>…")], {
      tools: [tool],
    }),
    "codex",
    "main",
  ],
  [
    "Codex auto-compaction",
    req("/v1/responses", codex, [
      sys("You are Codex"),
      user("task"),
      assistant("working"),
      user("You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary"),
    ]),
    "codex",
    "compaction",
  ],
  ["Codex /responses/compact", req("/v1/responses/compact", codex, [user("task")]), "codex", "compaction"],
  [
    "Codex sub-agent",
    req("/v1/responses", { ...codex, "x-openai-subagent": "review" }, [user("review")], { tools: [tool] }),
    "codex",
    "subagent",
  ],
  [
    "Codex memory generation",
    req("/v1/responses", { ...codex, "x-openai-memgen-request": "true" }, [user("memories")]),
    "codex",
    "summary",
  ],
  [
    "Qwen Code main loop",
    req(
      "/v1/chat/completions",
      { "user-agent": "OpenAI/JS 5.11.0" },
      [sys("You are Qwen Code"), ...qwenOpening, user("create hello.txt")],
      {
        tools: [tool],
      },
    ),
    "qwen-code",
    "main",
  ],
  [
    "Qwen Code chat compression",
    req(
      "/v1/chat/completions",
      {},
      [
        sys("You are the component that summarizes internal chat history into a given structure."),
        ...qwenOpening,
        user("First, reason in your scratchpad. Then, generate the <state_snapshot>."),
      ],
      { stream: false },
    ),
    "qwen-code",
    "compaction",
  ],
  [
    "opencode title",
    req("/v1/chat/completions", opencode, [
      sys("You are a title generator. You output ONLY a thread title."),
      user("Generate a title for this conversation:\ncreate hello.txt"),
    ]),
    "opencode",
    "title",
  ],
  [
    "opencode main loop",
    req("/v1/chat/completions", opencode, [sys("You are opencode"), user("create hello.txt")], {
      tools: [tool],
    }),
    "opencode",
    "main",
  ],
  [
    "an SDK agent without tools",
    req("/v1/chat/completions", { "user-agent": "OpenAI/JS 6.49.0" }, [sys("Solve it."), user("2+2?")]),
    "unknown",
    "main",
  ],
  // Claude Code 2.1.x Task/Agent sub-agent: `x-claude-code-agent-id` on every request of the sub-agent
  // (examples/claude-code pins 2.1.332), and the general-purpose sub-agent's own system prompt.
  [
    "Claude Code Task sub-agent (agent-id header)",
    req(
      "/agentic_api/v1/messages",
      { ...claude, "x-claude-code-agent-id": "a3f9c2", "x-claude-code-parent-agent-id": "a0" },
      [sys("You are a code reviewer."), user("review the diff")],
      { tools: [tool] },
    ),
    "claude-code",
    "subagent",
  ],
  [
    "Claude Code Task sub-agent (prompt, no header)",
    req(
      "/agentic_api/v1/messages",
      claude,
      [
        sys(
          "You are an agent for Claude Code, Anthropic's official CLI for Claude. Given the user's message, you should use the tools available to complete the task.",
        ),
        user("Find the config file."),
      ],
      { tools: [tool] },
    ),
    "claude-code",
    "subagent",
  ],
  [
    "a sub-agent prompt from another harness stays main",
    req(
      "/v1/chat/completions",
      codex,
      [sys("You are an agent for Claude Code, Anthropic's official CLI"), user("x")],
      {
        tools: [tool],
      },
    ),
    "codex",
    "main",
  ],
];

describe("createRequestClassifier — built-in rules", () => {
  const classifier = createRequestClassifier();
  it.each(table)("%s", (_name, request, harness, requestClass) => {
    const result = classifier.classify(request);
    expect({ harness: result.harness, requestClass: result.requestClass }).toEqual({ harness, requestClass });
  });

  it("should name the deciding rule", () => {
    expect(classifier.classify(table[1]![1])).toEqual({
      requestClass: "title",
      harness: "claude-code",
      rule: "builtin:claude-code-title-prompt",
    });
    expect(classifier.classify(table.at(-1)![1]).rule).toBe("default");
  });

  it("should class a known harness's tool-less one-turn request with its own system prompt as summary once the main loop is known", () => {
    const side = req("/v1/chat/completions", opencode, [sys("Summarise the diff."), user("diff…")]);
    expect(classifier.classify(side).requestClass).toBe("main");
    expect(classifier.classify(side, { mainSystemPrompt: "You are an agent." })).toEqual({
      requestClass: "summary",
      harness: "opencode",
      rule: "builtin:toolless-one-turn-own-system",
    });
    // The same system prompt as the main loop is the main loop (e.g. a final answer without tools).
    const same = req("/v1/chat/completions", opencode, [sys("You are an agent."), user("answer")]);
    expect(classifier.classify(same, { mainSystemPrompt: "You are an agent." }).requestClass).toBe("main");
    // An unknown agent app's helper call (e.g. a searcher it exports explicitly) stays main.
    const helper = req("/v1/chat/completions", {}, [sys("You are a searcher."), user("find x")]);
    expect(classifier.classify(helper, { mainSystemPrompt: "You are an agent." })).toEqual({
      requestClass: "main",
      harness: "unknown",
      rule: "default",
    });
  });

  it("should default every side class to record, probes to passthrough and main to train", () => {
    expect(DEFAULT_CLASS_POLICIES).toEqual({
      main: "train",
      subagent: "record",
      compaction: "record",
      title: "record",
      summary: "record",
      probe: "passthrough",
    });
  });
});

describe("detectHarness — strongest evidence first", () => {
  const qwenUa = { "user-agent": "claude-cli/0.24.4 (external, cli)", "x-app": "cli" };
  it.each([
    ["Claude Code's own UA (2.x)", { "user-agent": "claude-cli/2.1.3 (external, cli)" }, {}, "claude-code"],
    ["claude-cli/0.x alone (Qwen Code's borrowed UA) is no evidence", qwenUa, {}, "unknown"],
    [
      "Qwen Code's borrowed UA with its opening context",
      qwenUa,
      { firstUser: "<system-reminder>\nThis is the Qwen Code. We are setting up the context for our chat." },
      "qwen-code",
    ],
    [
      "Qwen Code's borrowed UA with its system prompt",
      qwenUa,
      { system: "You are Qwen Code, an interactive CLI agent" },
      "qwen-code",
    ],
    [
      "Qwen Code's borrowed UA on its summariser",
      qwenUa,
      { lastUser: "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML." },
      "qwen-code",
    ],
    [
      "a Claude Code-only header beats Qwen Code text in the user's prompt",
      { "x-claude-code-session-id": "9b1c", "user-agent": "claude-cli/2.1.3 (external, cli)" },
      { firstUser: "This is the Qwen Code. We are setting up the context for our chat." },
      "claude-code",
    ],
    [
      "Codex's originator beats a Qwen system prompt",
      { originator: "codex_exec" },
      { system: "You are Qwen Code" },
      "codex",
    ],
  ] as const)("%s", (_name, headers, content, harness) => {
    expect(detectHarness({ headers, firstUser: "", ...content })).toBe(harness);
  });
});

describe("createRequestClassifier — user rules", () => {
  it("should try user rules first, all conditions together, and apply configured policies", () => {
    const classifier = createRequestClassifier({
      policies: { title: "passthrough", subagent: "train" },
      rules: [
        { class: "subagent", headers: { "X-Agent-Role": "^critic$" } },
        { class: "title", harness: "opencode", lastUser: "^Generate a title" },
        { class: "summary", model: "-mini$", noTools: true, oneTurn: true },
      ],
    });
    const critic = req("/v1/chat/completions", { "x-agent-role": "critic" }, [user("check")], {
      tools: [tool],
    });
    expect(classifier.classify(critic)).toEqual({
      requestClass: "subagent",
      harness: "unknown",
      rule: "user:0",
    });
    const notCritic = req("/v1/chat/completions", { "x-agent-role": "critical" }, [user("check")]);
    expect(classifier.classify(notCritic).rule).toBe("default");
    expect(classifier.classify(table[12]![1]).rule).toBe("user:1");
    const mini = req("/v1/chat/completions", {}, [user("sum up")], { model: "qwen-mini" });
    expect(classifier.classify(mini).rule).toBe("user:2");
    expect(classifier.classify({ ...mini, request: { ...mini.request, tools: [tool] } }).rule).toBe(
      "default",
    );
    expect(classifier.policyOf("title")).toBe("passthrough");
    expect(classifier.policyOf("subagent")).toBe("train");
    expect(classifier.policyOf("compaction")).toBe("record");
  });

  it("should drop the built-in rules when builtinRules is false", () => {
    const classifier = createRequestClassifier({ builtinRules: false });
    expect(classifier.classify(table[1]![1]).requestClass).toBe("main");
  });

  it("should name the rule field of an invalid regular expression", () => {
    expect(() => createRequestClassifier({ rules: [{ class: "title", system: "(" }] })).toThrow(
      /^request-classes\.rules\[0\]\.system: invalid regular expression: /,
    );
  });
});

describe("parseRequestClassPolicies (--request-class-policy)", () => {
  it("should read CLASS=POLICY entries, later ones winning", () => {
    expect(parseRequestClassPolicies(["compaction=train", "title=passthrough", "compaction=record"])).toEqual(
      {
        compaction: "record",
        title: "passthrough",
      },
    );
    expect(parseRequestClassPolicies([])).toEqual({});
  });

  it("should name the entry that is malformed, with the valid values", () => {
    expect(() => parseRequestClassPolicies(["compaction"])).toThrow(
      '"compaction" is not CLASS=POLICY (e.g. compaction=train)',
    );
    expect(() => parseRequestClassPolicies(["chitchat=train"])).toThrow(
      '"chitchat=train": unknown class "chitchat"; valid: main, subagent, compaction, title, summary, probe',
    );
    expect(() => parseRequestClassPolicies(["title=keep"])).toThrow(
      '"title=keep": unknown policy "keep"; valid: train, record, passthrough',
    );
    expect(() => parseRequestClassPolicies(["main=record"])).toThrow(
      '"main=record": the main loop is always trained',
    );
  });
});
