/**
 * The export step against the real `SessionForest` from `@relax/forest` (character renderer from
 * `@relax/forest/testing`): a two-agent session exported explicitly, a retried session whose implicit
 * export is ambiguous, and rows whose tokens are exactly the committed ones.
 */
import { type AssistantMessage, type ChatMessage, canonicalizeState } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createCharRenderer } from "@relax/forest/testing";
import { describe, expect, it } from "vitest";
import { assertExportConfig } from "../src/config/validate-export-config";
import type { AdvantageInputSlot } from "../src/credit/advantage-function";
import { exportGroup } from "../src/group/export-group";
import type { SessionExportInput } from "../src/group/group-export-outcome";

const renderer = createCharRenderer();

function assistant(content: string): AssistantMessage {
  return { role: "assistant", content };
}

/** Runs one generation turn: the engine "generates" exactly the rendering of `reply`. */
function turn(forest: SessionForest, messages: ChatMessage[], reply: AssistantMessage, logprob: number) {
  const plan = forest.beginTurn(canonicalizeState({ messages }));
  const outputIds = renderer.renderResponse(reply);
  forest.commitResponse(plan, {
    outputIds,
    logprobs: outputIds.map(() => logprob),
    finishReason: "stop",
    message: reply,
    weightVersion: "v3",
  });
  return [...messages, reply];
}

function multiAgentSession(sessionId: string, outcome: number): SessionExportInput {
  const forest = new SessionForest({ sessionId, renderer });
  const user: ChatMessage = { role: "user", content: `solve ${sessionId}` };
  let main = turn(forest, [user], assistant("plan"), -0.25);
  main = turn(forest, [...main, { role: "user", content: "search says 4" }], assistant("4"), -0.5);
  const searcher = turn(forest, [{ role: "user", content: "search 2+2" }], assistant("4 (source)"), -0.125);
  return {
    sessionId,
    forest,
    output: {
      kind: "records",
      records: [
        { name: "main", messages: main, metadata: { outcome }, reward: outcome },
        { name: "searcher_0", messages: searcher, metadata: { usefulness: 0.5 } },
      ],
    },
  };
}

describe("export with the real SessionForest", () => {
  it("should export matched contexts with the committed tokens, masks and logprobs", async () => {
    const inputs: AdvantageInputSlot[][] = [];
    const advantage = (slots: AdvantageInputSlot[]) => {
      inputs.push(slots);
      return slots.map((slot) => ({
        main: slot.main!.outcome as number,
        searcher_0: (slot.main!.outcome as number) * (slot.searcher_0!.usefulness as number),
      }));
    };
    const config = assertExportConfig({
      nSamplesPerPrompt: 2,
      multiContext: true,
      useDynamicBatchSize: true,
      maxTokensPerGpu: 4096,
      customAdvantage: advantage,
    });
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [multiAgentSession("a", 1), multiAgentSession("b", 0)] },
      config,
      functions: { advantage },
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(inputs[0]).toEqual([
      { main: { outcome: 1 }, searcher_0: { usefulness: 0.5 } },
      { main: { outcome: 0 }, searcher_0: { usefulness: 0.5 } },
    ]);
    const [main, searcher] = outcome.rows;
    expect(renderer.decode(main!.tokens)).toBe(
      "<|im_start|>user\nsolve a<|im_end|>\n<|im_start|>assistant\n" +
        "plan<|im_end|>\n<|im_start|>user\nsearch says 4<|im_end|>\n<|im_start|>assistant\n4<|im_end|>",
    );
    const prompt = "<|im_start|>user\nsolve a<|im_end|>\n<|im_start|>assistant\n";
    expect(renderer.decode(main!.tokens.slice(0, main!.prompt_length))).toBe(prompt);
    const generated1 = renderer.renderResponse(assistant("plan")).length;
    const generated2 = renderer.renderResponse(assistant("4")).length;
    const observation = main!.response_length - generated1 - generated2;
    const response = main!.tokens.slice(main!.prompt_length);
    expect(renderer.decode(response.slice(generated1, generated1 + observation))).toBe(
      "\n<|im_start|>user\nsearch says 4<|im_end|>\n<|im_start|>assistant\n",
    );
    expect(main!.loss_mask).toEqual([
      ...Array(generated1).fill(1),
      ...Array(observation).fill(0),
      ...Array(generated2).fill(1),
    ]);
    expect(main!.rollout_log_probs).toEqual([
      ...Array(generated1).fill(-0.25),
      ...Array(observation).fill(0),
      ...Array(generated2).fill(-0.5),
    ]);
    expect(main!.advantages).toEqual(main!.loss_mask.map((mask) => mask * 1));
    expect(main).toMatchObject({
      advantage: 1,
      reward: 1,
      context_name: "main",
      rollout_id: "a",
      num_turns: 2,
      weight_versions: ["v3"],
      status: "completed",
    });
    expect(searcher).toMatchObject({
      advantage: 0.5,
      reward: null,
      context_name: "searcher_0",
      rollout_id: "a",
    });
    expect(renderer.decode(searcher!.tokens.slice(searcher!.prompt_length))).toBe("4 (source)<|im_end|>");
  });

  it("should drop the Group when a retry makes the implicit export ambiguous", async () => {
    const linear = new SessionForest({ sessionId: "ok", renderer });
    turn(linear, [{ role: "user", content: "q" }], assistant("a"), -1);
    const retried = new SessionForest({ sessionId: "retry", renderer });
    turn(retried, [{ role: "user", content: "q" }], assistant("first"), -1);
    turn(retried, [{ role: "user", content: "q" }], assistant("second"), -1);
    const outcome = await exportGroup({
      group: {
        groupIndex: 4,
        sessions: [
          { sessionId: "ok", forest: linear, output: { kind: "implicit", reward: 1 } },
          { sessionId: "retry", forest: retried, output: { kind: "implicit", reward: 0 } },
        ],
      },
      config: assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true }),
    });
    expect(outcome).toMatchObject({
      kind: "dropped",
      reason: "ambiguous_implicit_export",
      sessions: [{ sessionId: "retry", reason: "ambiguous_implicit_export" }],
    });
  });

  it("should drop the Group when a record's assistant text differs from what was generated", async () => {
    const session = multiAgentSession("c", 1);
    if (session.output?.kind !== "records") throw new Error("records expected");
    const main = session.output.records[0]!;
    main.messages = [...main.messages.slice(0, -1), { role: "assistant", content: "5" }];
    const other = multiAgentSession("d", 0);
    const advantage = () => null;
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [session, other] },
      config: assertExportConfig({
        nSamplesPerPrompt: 2,
        multiContext: true,
        useDynamicBatchSize: true,
        maxTokensPerGpu: 4096,
        customAdvantage: advantage,
      }),
      functions: { advantage },
    });
    expect(outcome).toMatchObject({ kind: "dropped", reason: "unmatched_record" });
  });
});
