import { readFileSync } from "node:fs";
import { SessionForest } from "@relax/forest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewaySession } from "../session/gateway-session";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

/**
 * Every harness's requests, over every protocol it speaks, through the gateway's wire handlers to the
 * classifier (stand-in engine: a script, not a model). Headers and fixed texts are those of the pinned
 * CLIs: Claude Code 2.1.x and Codex CLI 0.17x as examples/harness-tests observed them, opencode 1.18, and
 * Qwen Code 0.24.4 from its npm bundle (`@qwen-code/qwen-code@0.24.4`: `buildHeaders` —
 * `claude-cli/${version} (external, cli)` and `x-app: cli` with `--auth-type anthropic` on a
 * non-Anthropic base URL —, `getEnvironmentContext`, `getCompressionPrompt` and
 * `COMPRESSION_REQUEST_DIRECTIVE`). The Qwen Code anthropic compression requests are built from that
 * source, not recorded from a run; the recorded ones (RECORDED below, from a real run) are kept beside them.
 */
const QWEN_VERSION = "0.24.4";
const QWEN_SYSTEM =
  "You are Qwen Code, an interactive CLI agent developed by Alibaba Group, specializing in software engineering tasks.";
const QWEN_OPENING = `<system-reminder>\nThis is the Qwen Code. We are setting up the context for our chat.\nToday's date is Wednesday, December 2, 2026.\nMy operating system is: linux\n</system-reminder>`;
const QWEN_COMPRESSION_SYSTEM =
  "\nYou are the component that summarizes a conversation when its context window is about to overflow. The summary you produce will become the agent's ONLY memory of everything that happened before this point.\n\n<state_snapshot>\n    <primary_request_and_intent>\n    </primary_request_and_intent>\n</state_snapshot>";
const QWEN_DIRECTIVE = "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML.";
const QWEN_ANTHROPIC_HEADERS = {
  "user-agent": `claude-cli/${QWEN_VERSION} (external, cli)`,
  "x-app": "cli",
  "anthropic-beta": "interleaved-thinking-2025-05-14",
};
const QWEN_CHAT_HEADERS = { "user-agent": "OpenAI/JS 5.23.2" };
const CLAUDE_HEADERS = {
  "user-agent": "claude-cli/2.1.3 (external, cli)",
  "x-claude-code-session-id": "9b1c2d",
  "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
};
const CODEX_HEADERS = { originator: "codex_exec", "session-id": "019a", "user-agent": "codex_exec/0.17.0" };
const OPENCODE_HEADERS = {
  "user-agent": "opencode/1.18.33 ai-sdk/provider-utils",
  "x-session-affinity": "ses_1",
};

const chatTool = {
  type: "function",
  function: { name: "write_file", parameters: { type: "object", properties: {} } },
};
const anthropicTool = { name: "write_file", input_schema: { type: "object", properties: {} } };
const responsesTool = {
  type: "function",
  name: "exec_command",
  parameters: { type: "object", properties: {} },
};

type Protocol = "messages" | "chat" | "responses";
interface Case {
  name: string;
  protocol: Protocol;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  harness: string;
  requestClass: string;
}

const text = (t: string) => [{ type: "text", text: t }];
const anthropicHistory = [
  { role: "user", content: text(QWEN_OPENING) },
  { role: "assistant", content: text("Got it. Thanks for the context!") },
  { role: "user", content: text("create hello.txt") },
  { role: "assistant", content: text("Answer 1.") },
];
const chatHistory = [
  { role: "user", content: QWEN_OPENING },
  { role: "assistant", content: "Got it. Thanks for the context!" },
  { role: "user", content: "create hello.txt" },
  { role: "assistant", content: "Answer 1." },
];

const CASES: Case[] = [
  {
    name: "Claude Code main loop",
    protocol: "messages",
    headers: CLAUDE_HEADERS,
    body: {
      system: "You are Claude Code.",
      messages: [{ role: "user", content: "hi" }],
      tools: [anthropicTool],
    },
    harness: "claude-code",
    requestClass: "main",
  },
  {
    name: "Claude Code title",
    protocol: "messages",
    headers: CLAUDE_HEADERS,
    body: {
      system: "Generate a concise, sentence-case title (3-7 words) that captures the main topic.",
      messages: [{ role: "user", content: "<session>hi</session>" }],
    },
    harness: "claude-code",
    requestClass: "title",
  },
  {
    name: "Claude Code quota probe",
    protocol: "messages",
    headers: CLAUDE_HEADERS,
    body: { max_tokens: 1, messages: [{ role: "user", content: "quota" }] },
    harness: "claude-code",
    requestClass: "probe",
  },
  {
    name: "Qwen Code main loop (anthropic)",
    protocol: "messages",
    headers: QWEN_ANTHROPIC_HEADERS,
    body: { system: QWEN_SYSTEM, messages: anthropicHistory.slice(0, 3), tools: [anthropicTool] },
    harness: "qwen-code",
    requestClass: "main",
  },
  {
    name: "Qwen Code summariser (anthropic, no tools)",
    protocol: "messages",
    headers: QWEN_ANTHROPIC_HEADERS,
    body: {
      system: QWEN_COMPRESSION_SYSTEM,
      messages: [...anthropicHistory, { role: "user", content: text(QWEN_DIRECTIVE) }],
    },
    harness: "qwen-code",
    requestClass: "compaction",
  },
  {
    name: "Qwen Code cache-sharing compression (anthropic, tools kept)",
    protocol: "messages",
    headers: QWEN_ANTHROPIC_HEADERS,
    body: {
      system: QWEN_SYSTEM,
      messages: [
        ...anthropicHistory,
        {
          role: "user",
          content: text(
            `${QWEN_COMPRESSION_SYSTEM}\n\nDo not call tools; tool execution is disabled for this request. ${QWEN_DIRECTIVE}`,
          ),
        },
      ],
      tools: [anthropicTool],
    },
    harness: "qwen-code",
    requestClass: "compaction",
  },
  {
    name: "Qwen Code main loop (chat)",
    protocol: "chat",
    headers: QWEN_CHAT_HEADERS,
    body: {
      messages: [{ role: "system", content: QWEN_SYSTEM }, ...chatHistory.slice(0, 3)],
      tools: [chatTool],
    },
    harness: "qwen-code",
    requestClass: "main",
  },
  {
    name: "Qwen Code summariser (chat)",
    protocol: "chat",
    headers: QWEN_CHAT_HEADERS,
    body: {
      messages: [
        { role: "system", content: QWEN_COMPRESSION_SYSTEM },
        ...chatHistory,
        { role: "user", content: QWEN_DIRECTIVE },
      ],
    },
    harness: "qwen-code",
    requestClass: "compaction",
  },
  {
    name: "Codex main loop",
    protocol: "responses",
    headers: CODEX_HEADERS,
    body: {
      instructions: "You are Codex.",
      input: "<environment_context>…</environment_context>",
      tools: [responsesTool],
    },
    harness: "codex",
    requestClass: "main",
  },
  {
    name: "Codex auto-compaction",
    protocol: "responses",
    headers: CODEX_HEADERS,
    body: {
      instructions: "You are Codex.",
      input: [
        { role: "user", content: "task" },
        { role: "assistant", content: "working" },
        {
          role: "user",
          content: "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary.",
        },
      ],
      tools: [],
    },
    harness: "codex",
    requestClass: "compaction",
  },
  {
    name: "Codex sub-agent",
    protocol: "responses",
    headers: { ...CODEX_HEADERS, "x-openai-subagent": "review" },
    body: { input: "review the diff", tools: [responsesTool] },
    harness: "codex",
    requestClass: "subagent",
  },
  ...(["chat", "responses", "messages"] as const).flatMap((protocol): Case[] => [
    {
      name: `opencode title (${protocol})`,
      protocol,
      headers: OPENCODE_HEADERS,
      body: bodyFor(
        protocol,
        "You are a title generator. You output ONLY a thread title.",
        "Generate a title for this conversation:\nhi",
        false,
      ),
      harness: "opencode",
      requestClass: "title",
    },
    {
      name: `opencode main loop (${protocol})`,
      protocol,
      headers: OPENCODE_HEADERS,
      body: bodyFor(protocol, "You are opencode.", "hi", true),
      harness: "opencode",
      requestClass: "main",
    },
  ]),
];

function bodyFor(
  protocol: Protocol,
  system: string,
  prompt: string,
  withTools: boolean,
): Record<string, unknown> {
  if (protocol === "chat") {
    return {
      messages: [
        { role: "system", content: system },
        { role: "user", content: prompt },
      ],
      ...(withTools ? { tools: [chatTool] } : {}),
    };
  }
  if (protocol === "responses") {
    return { instructions: system, input: prompt, ...(withTools ? { tools: [responsesTool] } : {}) };
  }
  return {
    system,
    messages: [{ role: "user", content: prompt }],
    ...(withTools ? { tools: [anthropicTool] } : {}),
  };
}

const PATHS: Record<Protocol, string> = {
  messages: "/v1/messages",
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
};

/**
 * Recorded, not built: the compression requests the real Qwen Code 0.24.4 sent over both protocols in
 * examples/harness-tests (see the fixture's `$comment`). They differ from the source-built cases: over
 * Anthropic the cache-sharing prompt is appended to the tool-result user turn; over Chat Completions the
 * user agent is `QwenCode/0.24.4 (linux; x64)`.
 */
const RECORDED = (
  JSON.parse(
    readFileSync(new URL("./fixtures/qwen-code-0.24.4-compression.json", import.meta.url), "utf8"),
  ) as {
    requests: Array<{
      name: string;
      protocol: Protocol;
      headers: Record<string, string>;
      body: Record<string, unknown>;
    }>;
  }
).requests;

/**
 * Recorded, not built: the requests the real Claude Code 2.1.332 sent when its main loop started a
 * general-purpose sub-agent with the `Agent` tool (examples/harness-tests/test/claude-code-subagent.test.ts;
 * see the fixture's `$comment`): the main request, then the sub-agent's two.
 */
const RECORDED_CLAUDE_SUBAGENT = (
  JSON.parse(
    readFileSync(new URL("./fixtures/claude-code-2.1.332-subagent.json", import.meta.url), "utf8"),
  ) as {
    requests: Array<{
      name: string;
      protocol: Protocol;
      requestClass: "main" | "subagent";
      headers: Record<string, string>;
      body: Record<string, unknown>;
    }>;
  }
).requests;

let gateway: TestGateway;
let counter = 0;
beforeAll(async () => {
  gateway = await createTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

function open(maxContextTokens = 8192): GatewaySession {
  const id = `side-${++counter}`;
  const session = new GatewaySession({
    id,
    groupId: "g-side",
    mode: "train",
    forest: new SessionForest({ sessionId: id, renderer: gateway.renderer, maxContextTokens }),
  });
  gateway.registry.add(session);
  session.lease();
  return session;
}

async function send(
  session: GatewaySession,
  c: Pick<Case, "protocol" | "headers" | "body">,
): Promise<number> {
  const response = await gateway.fetch(
    new Request(`http://gateway.test/agentic_api${PATHS[c.protocol]}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${session.id}`,
        "content-type": "application/json",
        ...(c.protocol === "messages" ? { "anthropic-version": "2023-06-01" } : {}),
        ...c.headers,
      },
      body: JSON.stringify({
        model: "m",
        ...(c.protocol === "messages" ? { max_tokens: 64 } : {}),
        ...c.body,
      }),
    }),
  );
  await response.text();
  return response.status;
}

describe("harness × protocol request classes (wire requests of the pinned CLIs)", () => {
  it.each(CASES)("$name → $harness / $requestClass", async (c) => {
    const session = open();
    const from = gateway.turns.length;
    expect(await send(session, c)).toBe(200);
    const [turn] = gateway.turns.slice(from);
    expect({
      harness: turn?.classification?.harness,
      requestClass: turn?.classification?.requestClass,
    }).toEqual({
      harness: c.harness,
      requestClass: c.requestClass,
    });
  });

  it.each(RECORDED)("recorded Qwen Code 0.24.4 $name ($protocol) → qwen-code / compaction", async (c) => {
    const session = open(65_536);
    const from = gateway.turns.length;
    expect(await send(session, c)).toBe(200);
    const [turn] = gateway.turns.slice(from);
    expect(turn?.classification).toEqual({
      harness: "qwen-code",
      requestClass: "compaction",
      rule: "builtin:qwen-code-compression-prompt",
    });
  });

  it.each(RECORDED_CLAUDE_SUBAGENT)(
    "recorded Claude Code 2.1.332 $name → claude-code / $requestClass",
    async (c) => {
      const session = open(65_536);
      const from = gateway.turns.length;
      expect(await send(session, c)).toBe(200);
      expect(gateway.turns.slice(from)[0]?.classification).toEqual({
        harness: "claude-code",
        requestClass: c.requestClass,
        rule: c.requestClass === "main" ? "default" : "builtin:claude-code-subagent-header",
      });
      // Without the agent-id header (a proxy that drops it), the general-purpose agent's prompt decides.
      const { "x-claude-code-agent-id": agentId, ...headers } = c.headers;
      expect(agentId !== undefined).toBe(c.requestClass === "subagent");
      const bare = open(65_536);
      const next = gateway.turns.length;
      expect(await send(bare, { ...c, headers })).toBe(200);
      expect(gateway.turns.slice(next)[0]?.classification).toEqual({
        harness: "claude-code",
        requestClass: c.requestClass,
        rule: c.requestClass === "main" ? "default" : "builtin:claude-code-subagent-prompt",
      });
    },
  );

  it("should keep a Qwen Code 0.24.4 anthropic session with auto-compaction unambiguous for implicit export", async () => {
    const session = open();
    const [main, cold, shared] = [CASES[3]!, CASES[4]!, CASES[5]!];
    expect(await send(session, main)).toBe(200);
    // Compression: the cache-sharing attempt first, then the dedicated summariser.
    expect(await send(session, shared)).toBe(200);
    expect(await send(session, cold)).toBe(200);
    // The loop restarts from the summary (Qwen Code's post-compaction history: the summary as a user
    // message, "Got it. Thanks for the additional context!", then the task goes on).
    const restart = {
      ...main,
      body: {
        ...main.body,
        messages: [
          { role: "user", content: text("<state_snapshot>hello.txt not created yet</state_snapshot>") },
          { role: "assistant", content: text("Got it. Thanks for the additional context!") },
          { role: "user", content: text("create hello.txt") },
        ],
      },
    };
    expect(await send(session, restart)).toBe(200);
    expect(Object.fromEntries(session.requestClasses)).toEqual({ main: 2, compaction: 2 });
    expect(session.sideForests.get("compaction")!.turns()).toHaveLength(2);
    expect(session.forest.turns().map((turn) => [turn.transition, turn.segment])).toEqual([
      ["append", undefined],
      ["reset", "compaction"],
    ]);
    // One implicit export context per compaction segment (what the export plan asks the forest for), so
    // the session is exported, not dropped as ambiguous_implicit_export — which the misdetected harness
    // did: the summariser's reply was a second `main` leaf.
    const segments = session.forest.implicitExportSegments();
    expect(segments).toHaveLength(2);
    expect(session.forest.buildSample(segments[1]!.stateHash).resetFrom).toBe(segments[0]!.stateHash);
  });

  it("should generate Codex's remote compaction (/responses/compact), record it, and restart the main loop from its summary", async () => {
    const session = open();
    const post = (path: string, body: Record<string, unknown>) =>
      gateway.fetch(
        new Request(`http://gateway.test/agentic_api${path}`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${session.id}`,
            "content-type": "application/json",
            ...CODEX_HEADERS,
          },
          body: JSON.stringify({ model: "m", instructions: "You are Codex.", ...body }),
        }),
      );
    const task = { role: "user", content: "create hello.txt" };
    const first = await post("/v1/responses", { input: [task], tools: [responsesTool] });
    const answer = ((await first.json()) as { output: Array<{ type: string }> }).output;
    const from = gateway.turns.length;
    const compact = await post("/v1/responses/compact", {
      input: [task, ...answer],
      tools: [responsesTool],
      parallel_tool_calls: false,
    });
    expect(compact.status).toBe(200);
    const compacted = (await compact.json()) as {
      object: string;
      output: Array<{ type: string; encrypted_content?: string; content?: unknown }>;
    };
    expect(compacted.object).toBe("response.compaction");
    expect(compacted.output.map((item) => item.type)).toEqual(["message", "compaction"]);
    const [compactionTurn] = gateway.turns.slice(from);
    expect(compactionTurn!.classification).toEqual({
      requestClass: "compaction",
      harness: "codex",
      rule: "builtin:compact-path",
    });
    // The engine saw the history, no tools, and the gateway's instruction last; its text is the summary.
    const generate = gateway.standin.calls.filter((call) => call.path === "/generate").at(-1)!;
    const prompt = gateway.tokenizer.decode((generate.body as { input_ids: number[] }).input_ids, {
      skipSpecialTokens: false,
    });
    expect(prompt).toContain("Context compaction: write a summary of the conversation so far");
    expect(prompt).not.toContain("<tools>");
    const summary = "Answer 2.";
    expect(compacted.output[1]!.encrypted_content).toBe(
      `relax-compaction-v1:${Buffer.from(summary).toString("base64")}`,
    );
    expect(session.sideForests.get("compaction")!.turns()).toHaveLength(1);
    // Codex replaces its history by the compacted window and goes on.
    const restart = await post("/v1/responses", {
      input: [...compacted.output, { role: "user", content: "go on" }],
      tools: [responsesTool],
    });
    expect(restart.status).toBe(200);
    // The compacted window keeps the user's task, so the restart branches after it (a new segment).
    expect(session.forest.turns().map((turn) => [turn.transition, turn.segment])).toEqual([
      ["append", undefined],
      ["branch", "compaction"],
    ]);
    const segments = session.forest.implicitExportSegments();
    expect(segments).toHaveLength(2);
    const restartPrompt = gateway.tokenizer.decode(
      (
        gateway.standin.calls.filter((call) => call.path === "/generate").at(-1)!.body as {
          input_ids: number[];
        }
      ).input_ids,
      { skipSpecialTokens: false },
    );
    expect(restartPrompt).toContain(
      "<|im_start|>user\nSummary of the conversation so far (context compaction):\nAnswer 2.<|im_end|>",
    );
  });
});
