import type { AssistantMessage, ChatMessage, FunctionTool } from "@relax/chat";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { redactionPattern } from "../drift/compare-text";
import { DEFAULT_REDACTION_MARKERS } from "../drift/history-edit";
import type { InternalNode, InternalObservation } from "../node/forest-node";
import { SessionForest } from "../session-forest";
import { createCharRenderer } from "../testing/char-renderer";
import { type MatchContext, matchState } from "./match-state";
import { chainStateHash, seedStateHash } from "./state-hash";

vi.mock("./state-hash", async (load) => {
  const actual = await load<typeof import("./state-hash")>();
  return { ...actual, chainStateHash: vi.fn(actual.chainStateHash) };
});

const TOOLS: FunctionTool[] = [
  { type: "function", function: { name: "f", description: "d", parameters: { type: "object" } } },
];

const call = (id: string, args: string) => ({
  id,
  type: "function" as const,
  function: { name: "f", arguments: args },
});

const observationMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.constantFrom("a", "b", "").map((content) => ({ role: "user" as const, content })),
  fc.constantFrom("s", "t").map((content) => ({ role: "system" as const, content })),
  fc
    .tuple(fc.constantFrom("ok", "x"), fc.constantFrom("c1", "c2"))
    .map(([content, id]) => ({ role: "tool" as const, content, tool_call_id: id })),
  // Content parts and extra keys: compared by hash only.
  fc.constant<ChatMessage>({ role: "user", content: [{ type: "text", text: "a" }] }),
);

const assistant: fc.Arbitrary<AssistantMessage> = fc.oneof(
  fc.constantFrom("r", "q", "").map((content) => ({ role: "assistant" as const, content })),
  fc.constant<AssistantMessage>({ role: "assistant", content: "r", reasoning_content: "think" }),
  fc.constant<AssistantMessage>({ role: "assistant", content: "r", reasoning_content: "" }),
  fc
    .constantFrom('{"a":1}', '{"a":2}')
    .map((args) => ({ role: "assistant" as const, content: "", tool_calls: [call("c1", args)] })),
  fc.constant<AssistantMessage>({ role: "assistant", content: "", tool_calls: [] }),
);

type Step =
  | {
      kind: "extend";
      from: number;
      added: ChatMessage[];
      reply: AssistantMessage;
      fail: boolean;
      tools: boolean;
    }
  | { kind: "edit"; from: number; reply: AssistantMessage };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("extend" as const),
      from: fc.nat(),
      added: fc.array(observationMessage, { minLength: 1, maxLength: 3 }),
      reply: assistant,
      fail: fc.boolean(),
      tools: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("edit" as const), from: fc.nat(), reply: assistant }),
  },
);

/** The match context of a forest, rebuilt from its public nodes. */
function contextOf(forest: SessionForest): MatchContext {
  const nodes = new Map<string, InternalNode>();
  for (const node of forest.nodes()) nodes.set(node.stateHash, node as InternalNode);
  return {
    nodes,
    root: nodes.get(forest.rootStateHash)!,
    redaction: redactionPattern(DEFAULT_REDACTION_MARKERS),
  };
}

const seedOf = (node: InternalNode) =>
  seedStateHash(
    (node as InternalObservation).tools ?? [],
    (node as InternalObservation).chatTemplateKwargs ?? {},
  );

describe("matchState: comparing committed messages instead of hashing them", () => {
  it("finds exactly what hashing every message finds, over generated forests and requests (property)", () => {
    const renderer = createCharRenderer();
    let descended = 0;
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 14 }),
        fc.constantFrom("tolerant", "exact"),
        (steps, policy) => {
          const forest = new SessionForest({
            sessionId: "s",
            renderer,
            policy: policy as "tolerant" | "exact",
          });
          const states: { messages: ChatMessage[]; tools: boolean }[] = [];
          for (const s of steps) {
            const base =
              states.length === 0 ? { messages: [], tools: false } : states[s.from % states.length]!;
            let messages: ChatMessage[];
            let tools = base.tools;
            if (s.kind === "extend") {
              messages = [...base.messages, ...s.added];
              if (base.messages.length === 0) tools = s.tools;
            } else {
              // Rewrite the last assistant message of a committed state, then ask for a new turn.
              const at = base.messages.findLastIndex((m) => m.role === "assistant");
              if (at < 0) continue;
              messages = [...base.messages.slice(0, at), s.reply, { role: "user", content: "a" }];
            }
            const state = { messages, tools: tools ? TOOLS : [], chatTemplateKwargs: {} };
            const context = contextOf(forest);
            const seed = seedStateHash(state.tools, state.chatTemplateKwargs);
            const tolerant = policy === "tolerant";
            const reference = matchState(context, { messages, seed, tolerant });
            const fast = matchState(context, { messages, seed, tolerant, seedOf });
            expect(fast).toEqual(reference);
            if (reference.depth > 0) descended++;
            let plan: ReturnType<SessionForest["beginTurn"]>;
            try {
              plan = forest.beginTurn(state);
            } catch {
              continue;
            }
            if (s.kind === "extend" && s.fail) {
              forest.failTurn(plan);
              continue;
            }
            const reply = s.kind === "extend" ? s.reply : { role: "assistant" as const, content: "r" };
            const ids = renderer.renderResponse(reply);
            try {
              forest.commitResponse(plan, {
                outputIds: ids,
                logprobs: ids.map(() => -0.5),
                finishReason: "stop",
                message: reply,
              });
            } catch {
              continue;
            }
            states.push({ messages: [...messages, reply], tools });
          }
        },
      ),
      { numRuns: 300, seed: 16 },
    );
    expect(descended).toBeGreaterThan(300);
  });

  it("hashes only the messages after the committed path", () => {
    const renderer = createCharRenderer();
    const forest = new SessionForest({ sessionId: "s", renderer });
    const first: ChatMessage[] = [{ role: "user", content: "a" }];
    const plan = forest.beginTurn({ messages: first, tools: [], chatTemplateKwargs: {} });
    const reply: AssistantMessage = { role: "assistant", content: "r" };
    forest.commitResponse(plan, {
      outputIds: renderer.renderResponse(reply),
      logprobs: renderer.renderResponse(reply).map(() => 0),
      finishReason: "stop",
      message: reply,
    });
    const messages: ChatMessage[] = [
      { role: "user", content: "a" },
      { ...reply },
      { role: "user", content: "b" },
    ];
    const context = contextOf(forest);
    const seed = seedStateHash([], {});
    const hashed = vi.mocked(chainStateHash);
    hashed.mockClear();
    const reference = matchState(context, { messages, seed, tolerant: true });
    expect(hashed).toHaveBeenCalledTimes(3);
    hashed.mockClear();
    const match = matchState(context, { messages, seed, tolerant: true, seedOf });
    expect(hashed).toHaveBeenCalledTimes(1);
    expect(match).toEqual(reference);
    expect(match.depth).toBe(2);
    expect(match.node.stateHash).toBe(forest.implicitExportLeaf().stateHash);
  });
});
