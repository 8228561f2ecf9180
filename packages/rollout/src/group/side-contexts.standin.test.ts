import { createRequestClassifier } from "@relax/agent-api";
import type { TrainingRow } from "@relax/export";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PromptItem } from "../dataset/prompt-dataset";
import {
  createFakeLauncher,
  type FakeAgentContext,
  type FakeAgentResult,
} from "../testing/create-fake-launcher";
import { createTestGroupGateway, type TestGroupGateway } from "../testing/create-test-group-gateway";
import { type GroupResult, runGroup } from "./run-group";

/**
 * Side requests trained as contexts of their Group (docs/contract.md#side-contexts), end to end in
 * process: scripted agents send harness-shaped requests (Codex auto-compaction over Responses, Qwen Code
 * chat compression over Chat Completions and Anthropic Messages, a Claude Code `Task` sub-agent) to the
 * gateway app; the stand-in engine answers (a script, not a model: "Answer <n>." where n counts the
 * assistant turns in the prompt); the Group is exported by the real pipeline.
 */
const prompt: PromptItem = {
  index: 0,
  messages: [{ role: "user", content: "make hello.txt" }],
  metadata: {},
};
const fnTool = {
  type: "function",
  function: { name: "shell", parameters: { type: "object", properties: {} } },
};

type Post = (
  path: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
) => Promise<unknown>;

function poster(gateway: TestGroupGateway, context: FakeAgentContext): Post {
  return async (path, body, headers = {}) => {
    const response = await gateway.fetch(
      new Request(new URL(path, context.baseUrl), {
        method: "POST",
        headers: {
          authorization: `Bearer ${context.sessionId}`,
          "x-api-key": context.sessionId,
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
          ...headers,
        },
        body: JSON.stringify({ model: "m", ...body }),
      }),
    );
    const json = (await response.json()) as unknown;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
}

const chatText = (json: unknown) =>
  (json as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
const messagesText = (json: unknown) => (json as { content: Array<{ text: string }> }).content[0]!.text;
const responsesText = (json: unknown) =>
  (json as { output: Array<{ type: string; content?: Array<{ text: string }> }> }).output.find(
    (item) => item.type === "message",
  )!.content![0]!.text;

async function runScripted(
  gateway: TestGroupGateway,
  agent: (post: Post, slot: number) => Promise<void>,
): Promise<Extract<GroupResult, { kind: "exported" }>> {
  const launcher = createFakeLauncher({
    fetch: gateway.fetch,
    agent: async (context): Promise<FakeAgentResult> => {
      const slot = Number(/\.s(\d+)$/.exec(context.handle.sessionId)![1]);
      await agent(poster(gateway, context), slot);
      return { status: "succeeded", output: { kind: "implicit", reward: slot === 0 ? 1 : 0 } };
    },
  });
  const result = await runGroup(gateway.groupContext({ launchAgent: launcher.launch }), {
    groupIndex: 0,
    prompt,
    size: 2,
    mode: "train",
    rolloutId: 1,
  });
  if (result.kind !== "exported") throw new Error(`${result.kind}: ${result.message}`);
  return result;
}

/** The `/generate` input of the engine call whose prompt contains `marker`. */
function generateInput(gateway: TestGroupGateway, from: number, marker: string): number[] {
  const bodies = gateway.standin.calls
    .slice(from)
    .filter((call) => call.path === "/generate")
    .map((call) => (call.body as { input_ids: number[] }).input_ids);
  const found = bodies.filter((ids) => decode(gateway, ids).includes(marker));
  expect(found).toHaveLength(1);
  return found[0]!;
}
const decode = (gateway: TestGroupGateway, ids: number[]) =>
  gateway.tokenizer.decode(ids, { skipSpecialTokens: false });
const summary = (rows: TrainingRow[]) =>
  rows.map((row) => [row.sample_index, row.context_name, row.request_class, row.reward, row.num_turns]);
// GRPO over rewards [1, 0]: (1 - 0.5) / (unbiased std sqrt(0.5) + 1e-6).
const ADVANTAGE = 0.5 / (Math.SQRT1_2 + 1e-6);

/** Checks a side row against the engine call that generated it: tokens, mask, logprobs, credit. */
function expectExactSideRow(
  gateway: TestGroupGateway,
  row: TrainingRow,
  inputIds: number[],
  main: TrainingRow,
) {
  expect(row.tokens.slice(0, row.prompt_length)).toEqual(inputIds);
  expect(decode(gateway, row.tokens.slice(row.prompt_length))).toBe("Answer 2.<|im_end|>");
  expect(row.loss_mask).toEqual(new Array(row.response_length).fill(1));
  expect(row.rollout_log_probs.every((logprob) => logprob < 0)).toBe(true);
  expect([row.reward, row.advantage, row.rollout_id]).toEqual([main.reward, main.advantage, main.rollout_id]);
  expect(row.advantages).toEqual(new Array(row.response_length).fill(main.advantage));
}

describe("request classes with the train policy (stand-in engine, scripted agents)", () => {
  let trained: TestGroupGateway;
  let recorded: TestGroupGateway;
  beforeAll(async () => {
    trained = await createTestGroupGateway({
      turns: {
        classifier: createRequestClassifier({ policies: { compaction: "train", subagent: "train" } }),
      },
    });
    recorded = await createTestGroupGateway();
  });
  afterAll(async () => {
    await trained.close();
    await recorded.close();
  });

  it("should export a Codex auto-compaction (Responses API) as its own row with the session's credit, tokens exact", async () => {
    const from = trained.standin.calls.length;
    const codex = { originator: "codex_exec" };
    const user = (text: string) => ({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text }],
    });
    const tools = [{ type: "function", name: "shell", parameters: { type: "object", properties: {} } }];
    const result = await runScripted(trained, async (post, slot) => {
      const base = { instructions: "You are Codex.", tools, store: false };
      const first = responsesText(
        await post("v1/responses", { ...base, input: [user(`task ${slot}`)] }, codex),
      );
      if (slot !== 0) return;
      const history = [
        user(`task ${slot}`),
        { type: "message", role: "assistant", content: [{ type: "output_text", text: first }] },
      ];
      const compact = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary.";
      const handoff = responsesText(
        await post("v1/responses", { ...base, tools: [], input: [...history, user(compact)] }, codex),
      );
      await post(
        "v1/responses",
        { ...base, input: [user(`Another language model started to solve this problem: ${handoff}`)] },
        codex,
      );
    });
    const rows = result.export.rows;
    expect(summary(rows)).toEqual([
      [0, null, undefined, 1, 1],
      [0, null, undefined, 1, 1],
      [0, "compaction:0", "compaction", 1, 1],
      [1, null, undefined, 0, 1],
    ]);
    expect(rows[0]!.advantage).toBeCloseTo(ADVANTAGE, 12);
    const inputIds = generateInput(trained, from, "CONTEXT CHECKPOINT COMPACTION");
    expectExactSideRow(trained, rows[2]!, inputIds, rows[1]!);
    // Linked to the main loop's turn the compaction followed.
    expect(rows[2]!.parent_state_hash).toBe(rows[0]!.state_hash);
  });

  it.each([
    ["Chat Completions", "v1/chat/completions"],
    ["Anthropic Messages", "v1/messages"],
  ])("should export Qwen Code's chat compression over %s as a side row, tokens exact", async (_, path) => {
    const from = trained.standin.calls.length;
    const anthropic = path === "v1/messages";
    const system = (text: string) =>
      anthropic ? { system: text } : { messages: [{ role: "system", content: text }] };
    const send = async (post: Post, sys: string, messages: unknown[], tools: boolean) => {
      const head = system(sys) as { system?: string; messages?: unknown[] };
      const body = {
        ...(head.system !== undefined ? { system: head.system } : {}),
        messages: [...(head.messages ?? []), ...messages],
        max_tokens: 64,
        ...(tools
          ? anthropic
            ? { tools: [{ name: "shell", input_schema: { type: "object", properties: {} } }] }
            : { tools: [fnTool] }
          : {}),
      };
      const json = await post(path, body);
      return anthropic ? messagesText(json) : chatText(json);
    };
    const opening = [
      { role: "user", content: "This is the Qwen Code. We are setting up the context for our chat." },
      { role: "assistant", content: "Got it. Thanks for the context!" },
    ];
    const result = await runScripted(trained, async (post, slot) => {
      const task = { role: "user", content: `task ${slot}` };
      const first = await send(post, "You are Qwen Code.", [...opening, task], true);
      if (slot !== 0) return;
      const snapshot = await send(
        post,
        "You are the component that summarizes internal chat history into a given structure.",
        [
          ...opening,
          task,
          { role: "assistant", content: first },
          { role: "user", content: "Generate the <state_snapshot>." },
        ],
        false,
      );
      await send(post, "You are Qwen Code.", [{ role: "user", content: snapshot }], true);
    });
    const rows = result.export.rows;
    expect(summary(rows)).toEqual([
      [0, null, undefined, 1, 1],
      [0, null, undefined, 1, 1],
      [0, "compaction:0", "compaction", 1, 1],
      [1, null, undefined, 0, 1],
    ]);
    // The compression prompt holds the opening exchange's assistant turn too: the reply is "Answer 3.".
    const side = rows[2]!;
    const inputIds = generateInput(trained, from, "summarizes internal chat history");
    expect(side.tokens.slice(0, side.prompt_length)).toEqual(inputIds);
    expect(decode(trained, side.tokens.slice(side.prompt_length))).toBe("Answer 3.<|im_end|>");
    expect(side.loss_mask).toEqual(new Array(side.response_length).fill(1));
    expect([side.reward, side.advantage]).toEqual([rows[1]!.reward, rows[1]!.advantage]);
  });

  /** A Claude Code session whose main loop starts a `Task` sub-agent (two turns), then finishes. */
  const claudeCode = async (post: Post, slot: number) => {
    const cc = { "x-claude-code-session-id": `cc-${slot}`, "anthropic-beta": "claude-code-20250219" };
    const tools = [
      { name: "Task", input_schema: { type: "object", properties: {} } },
      { name: "Write", input_schema: { type: "object", properties: {} } },
    ];
    const main = {
      system: "You are Claude Code, Anthropic's official CLI for Claude.",
      max_tokens: 64,
      tools,
    };
    const task = { role: "user", content: `task ${slot}` };
    const first = messagesText(await post("v1/messages?beta=true", { ...main, messages: [task] }, cc));
    const sub = {
      system:
        "You are an agent for Claude Code, Anthropic's official CLI for Claude. Given the user's message, you should use the tools available to complete the task.",
      max_tokens: 64,
      tools: [tools[1]],
    };
    const agent = { ...cc, "x-claude-code-agent-id": `agent-${slot}` };
    const find = { role: "user", content: "Find the config file." };
    const a1 = messagesText(await post("v1/messages?beta=true", { ...sub, messages: [find] }, agent));
    const a2 = messagesText(
      await post(
        "v1/messages?beta=true",
        { ...sub, messages: [find, { role: "assistant", content: a1 }, { role: "user", content: "ok" }] },
        agent,
      ),
    );
    await post(
      "v1/messages?beta=true",
      { ...main, messages: [task, { role: "assistant", content: first }, { role: "user", content: a2 }] },
      cc,
    );
  };

  it("should keep a session with a Claude Code Task sub-agent unambiguous by default (sub-agent recorded)", async () => {
    const result = await runScripted(recorded, claudeCode);
    expect(summary(result.export.rows)).toEqual([
      [0, null, undefined, 1, 2],
      [1, null, undefined, 0, 2],
    ]);
    for (const session of result.sessions) {
      expect([...session.sideForests.keys()]).toEqual(["subagent"]);
      expect(session.sideForests.get("subagent")!.turns()).toHaveLength(2);
      expect(Object.fromEntries(session.requestClasses)).toEqual({ main: 2, subagent: 2 });
    }
  });

  it("should export parent and sub-agent contexts under subagent=train, the child linked to the parent turn", async () => {
    const result = await runScripted(trained, claudeCode);
    const rows = result.export.rows;
    expect(summary(rows)).toEqual([
      [0, null, undefined, 1, 2],
      [0, "subagent:0", "subagent", 1, 2],
      [1, null, undefined, 0, 2],
      [1, "subagent:0", "subagent", 0, 2],
    ]);
    const pairs: Array<[TrainingRow, TrainingRow]> = [
      [rows[0]!, rows[1]!],
      [rows[2]!, rows[3]!],
    ];
    for (const [main, child] of pairs) {
      // The parent turn is the main loop's first response (the one that started the Task).
      const firstMainTurn = result.export.contexts.find((c) => c.stateHash === main.state_hash)!.sample
        .turns[0]!;
      expect(child.parent_state_hash).toBe(firstMainTurn.stateHash);
      expect(child.advantage).toBe(main.advantage);
      expect(decode(trained, child.tokens)).toContain("Find the config file.");
      expect(decode(trained, child.tokens.slice(child.prompt_length))).toMatch(
        /^Answer 1\.<\|im_end\|>.*Answer 2\.<\|im_end\|>$/s,
      );
    }
  });
});
