import type { AssistantMessage, ChatMessage, ConversationState, FunctionTool } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createCharRenderer } from "@relax/forest/testing";
import { describe, expect, it } from "vitest";
import { assertExportConfig } from "../config/validate-export-config";
import { buildDebugDump } from "../debug/build-debug-dump";
import { planSessionExport } from "../plan/plan-session-export";
import { exportGroup } from "./export-group";
import type { SessionExportInput } from "./group-export-outcome";

const renderer = createCharRenderer();
const fn = (name: string): FunctionTool => ({ type: "function", function: { name, parameters: {} } });
const say = (content: string, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content,
  ...extra,
});

// An @openai/agents handoff: the triage agent (instructions A, a handoff tool) calls the handoff tool, reads
// its result and answers; the weather agent (instructions B, its own tool) carries the whole history on.
const TRIAGE: ChatMessage = { role: "system", content: "You triage." };
const WEATHER: ChatMessage = { role: "system", content: "You report the weather." };
const TRIAGE_TOOLS = [fn("transfer_to_weather")];
const WEATHER_TOOLS = [fn("get_weather")];
const HANDOFF = say("", {
  tool_calls: [
    { id: "call_1", type: "function", function: { name: "transfer_to_weather", arguments: "{}" } },
  ],
});
const HANDOFF_RESULT: ChatMessage = {
  role: "tool",
  content: '{"assistant":"weather"}',
  tool_call_id: "call_1",
};

function commit(
  forest: SessionForest,
  state: ConversationState,
  reply: AssistantMessage,
  options: { segment?: "compaction" } = {},
) {
  const plan = forest.beginTurn(state, options);
  const outputIds = renderer.renderResponse(reply);
  return forest.commitResponse(plan, {
    outputIds,
    logprobs: outputIds.map((_, i) => -0.25 - i / 64),
    finishReason: "stop",
    message: reply,
  });
}

/** A session whose history switches agent once: two agent contexts, the leaves in order. */
function handoffSession(sessionId: string, reward: number): { input: SessionExportInput; leaves: string[] } {
  const forest = new SessionForest({ sessionId, renderer });
  const task: ChatMessage = { role: "user", content: `weather for ${sessionId}?` };
  const chat = (messages: ChatMessage[], tools: FunctionTool[]) => ({
    messages,
    tools,
    chatTemplateKwargs: {},
  });
  commit(forest, chat([TRIAGE, task], TRIAGE_TOOLS), HANDOFF);
  const triage = commit(
    forest,
    chat([TRIAGE, task, HANDOFF, HANDOFF_RESULT], TRIAGE_TOOLS),
    say("Handing over."),
  );
  const history = [task, HANDOFF, HANDOFF_RESULT, say("Handing over.")];
  const weather = commit(forest, chat([WEATHER, ...history], WEATHER_TOOLS), say(`Sunny for ${sessionId}.`));
  return {
    input: { sessionId, forest, output: { kind: "implicit", reward } },
    leaves: [triage.node.stateHash, weather.node.stateHash],
  };
}

const config = (agentContexts?: "train" | "drop") =>
  assertExportConfig({
    nSamplesPerPrompt: 4,
    agentWritesReward: true,
    ...(agentContexts !== undefined ? { agentContexts } : {}),
  });

describe("agent contexts in export", () => {
  it("should export one row per agent context, each with its session's reward and advantage and the forest's tokens", async () => {
    const sessions = [
      handoffSession("s0", 1),
      handoffSession("s1", 0),
      handoffSession("s2", 0),
      handoffSession("s3", 1),
    ];
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: sessions.map((session) => session.input) },
      config: config(),
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    const a = 0.5 / (Math.sqrt(1 / 3) + 1e-6);
    expect(
      outcome.rows.map((row) => [
        row.session_id,
        row.state_hash,
        row.reward,
        row.advantage,
        row.segment_kind,
      ]),
    ).toEqual([
      ["s0", sessions[0]!.leaves[0], 1, a, "agent"],
      ["s0", sessions[0]!.leaves[1], 1, a, "agent"],
      ["s1", sessions[1]!.leaves[0], 0, -a, "agent"],
      ["s1", sessions[1]!.leaves[1], 0, -a, "agent"],
      ["s2", sessions[2]!.leaves[0], 0, -a, "agent"],
      ["s2", sessions[2]!.leaves[1], 0, -a, "agent"],
      ["s3", sessions[3]!.leaves[0], 1, a, "agent"],
      ["s3", sessions[3]!.leaves[1], 1, a, "agent"],
    ]);
    expect(outcome.rows.map((row) => row.context_name)).toEqual(Array(8).fill(null));
    expect(outcome.rows.slice(0, 2).map((row) => row.rollout_id)).toEqual(["s0", "s0"]);
    // The earlier context copied its reward from the last one.
    expect(outcome.rows[0]!.reward_source).toEqual({
      kind: "agent_output",
      path: "output.reward",
      copied_from: sessions[0]!.leaves[1],
    });
    // Every row is exactly its forest sample: token ids, loss mask, rollout logprobs.
    for (const [i, row] of outcome.rows.entries()) {
      const forest = sessions[Math.floor(i / 2)]!.input.forest as SessionForest;
      const sample = forest.buildSample(row.state_hash);
      expect([row.tokens, row.loss_mask, row.rollout_log_probs, row.prompt_length]).toEqual([
        sample.tokens,
        sample.lossMask,
        sample.rolloutLogProbs,
        sample.promptLength,
      ]);
    }
    // The weather context trains only its own answer; the triage turns are its prompt (loss 0).
    const weatherRow = outcome.rows[1]!;
    expect(weatherRow.loss_mask.filter((bit) => bit === 1)).toHaveLength(
      renderer.renderResponse(say("Sunny for s0.")).length,
    );
    expect(renderer.decode(weatherRow.tokens.slice(0, weatherRow.prompt_length))).toContain(
      "You report the weather.",
    );
    expect(outcome.rows[0]!.loss_mask.filter((bit) => bit === 1)).toHaveLength(
      renderer.renderResponse(HANDOFF).length + renderer.renderResponse(say("Handing over.")).length,
    );
  });

  it("should drop the Group with agentContexts drop, naming the option", async () => {
    const sessions = [
      handoffSession("s0", 1),
      handoffSession("s1", 0),
      handoffSession("s2", 0),
      handoffSession("s3", 1),
    ];
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: sessions.map((session) => session.input) },
      config: config("drop"),
    });
    expect(outcome.kind).toBe("dropped");
    if (outcome.kind !== "dropped") return;
    expect(outcome.reason).toBe("ambiguous_implicit_export");
    expect(outcome.message).toBe(
      "group 0 dropped (ambiguous_implicit_export): session s0: implicit export needs exactly one exportable " +
        "leaf of a strictly linear history, or one per compaction segment or agent context: implicit export " +
        "requires strictly linear history, but turn 2 was a reset that switched agent (new system prompt, tools " +
        "or chat-template kwargs) while agent contexts are off; train each agent as its own context (export " +
        'option agentContexts: "train", --agent-contexts train) or write explicit export records ' +
        "(docs/contract.md#export-records) (and 3 more non-finalizable session(s))",
    );
    expect(outcome.sessions.map((session) => session.reason)).toEqual(
      Array(4).fill("ambiguous_implicit_export"),
    );
  });

  it("should end with the context where the session ended when it went back to an earlier agent", async () => {
    const { input, leaves } = handoffSession("s0", 1);
    const forest = input.forest as SessionForest;
    // The weather agent hands back; the triage agent's request extends its own context (an append).
    const history = [
      TRIAGE,
      { role: "user", content: "weather for s0?" } as ChatMessage,
      HANDOFF,
      HANDOFF_RESULT,
      say("Handing over."),
      say("Sunny for s0."),
      { role: "user", content: "Thanks." } as ChatMessage,
    ];
    const final = commit(
      forest,
      { messages: history, tools: TRIAGE_TOOLS, chatTemplateKwargs: {} },
      say("Bye."),
    );
    const seen: string[] = [];
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [{ ...input, output: { kind: "implicit" } }] },
      config: assertExportConfig({ nSamplesPerPrompt: 1, customRm: "m#f" }),
      functions: {
        reward: (rewardInput) => {
          seen.push(rewardInput.sample.stateHash);
          return 1;
        },
      },
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    // The reward function scores the final answer's context, once; both contexts are agent contexts.
    expect(seen).toEqual([final.node.stateHash]);
    expect(outcome.rows.map((row) => [row.state_hash, row.segment_kind, row.reward])).toEqual([
      [leaves[1], "agent", 1],
      [final.node.stateHash, "agent", 1],
    ]);
  });

  it("should tell agent contexts from compaction segments in the plan and the debug dump", async () => {
    // A LangChain bindTools loop, compacted once, then withStructuredOutput: the same messages without tools.
    const forest = new SessionForest({ sessionId: "s0", renderer });
    const task: ChatMessage = { role: "user", content: "weather?" };
    const tools = { tools: WEATHER_TOOLS, chatTemplateKwargs: {} };
    const first = commit(forest, { messages: [WEATHER, task], ...tools }, say("Looking."));
    const summary: ChatMessage = { role: "user", content: "Summary: looking." };
    const second = commit(forest, { messages: [WEATHER, summary], ...tools }, say("Sunny."), {
      segment: "compaction",
    });
    const format: ChatMessage = { role: "user", content: "Answer as JSON." };
    const structured = commit(
      forest,
      { messages: [WEATHER, summary, say("Sunny."), format], tools: [], chatTemplateKwargs: {} },
      say('{"weather":"sunny"}'),
    );
    const plan = planSessionExport({ sessionId: "s0", output: { kind: "implicit", reward: 1 }, forest });
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.contexts.map((context) => [context.stateHash, context.segment])).toEqual([
      [first.node.stateHash, { index: 0, count: 3, kind: "compaction" }],
      [second.node.stateHash, { index: 1, count: 3, kind: "compaction" }],
      [structured.node.stateHash, { index: 2, count: 3, kind: "agent" }],
    ]);

    const outcome = await exportGroup({
      group: {
        groupIndex: 0,
        sessions: [{ sessionId: "s0", forest, output: { kind: "implicit", reward: 1 } }],
      },
      config: assertExportConfig({ nSamplesPerPrompt: 1, agentWritesReward: true }),
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.rows.map((row) => row.segment_kind)).toEqual(["compaction", "compaction", "agent"]);
    const dump = buildDebugDump({
      rolloutStep: 0,
      outcomes: [outcome],
      decode: (ids) => renderer.decode(ids),
      sessions: new Map([[0, [{ sessionId: "s0", forest }]]]),
    });
    const group = dump.groups[0]!;
    expect(group.sessions![0]!.forest.turns.map((turn) => turn.segment)).toEqual([
      undefined,
      "compaction",
      "agent",
    ]);
    expect(group.samples.map((sample) => sample.segment)).toEqual([
      { index: 0, count: 3, kind: "compaction" },
      { index: 1, count: 3, kind: "compaction" },
      { index: 2, count: 3, kind: "agent" },
    ]);
  });
});
