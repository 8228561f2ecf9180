import type { AssistantMessage, ChatMessage } from "@relax/chat";
import { canonicalizeMessages } from "@relax/chat";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type MatchPolicy, SessionForest, type TurnPlan } from "../src/index";
import { createCharRenderer } from "../src/testing/index";
import { fakeLogprob } from "./helpers";

type Edit = "drop_reasoning" | "whitespace" | "redact" | "new_call_id";
type Op =
  | { kind: "append"; text: string; answer: Answer }
  | { kind: "branch"; pick: number; text: string; answer: Answer }
  | { kind: "drift"; pick: number; edit: Edit; text: string; answer: Answer }
  | { kind: "reset"; text: string; answer: Answer }
  | { kind: "retry"; answer: Answer }
  | { kind: "fail"; text: string };
interface Answer {
  text: string;
  reasoning: string | null;
  call: { key: string; value: number } | null;
}

const word = fc.stringMatching(/^[a-e ]{1,6}$/).filter((s) => s.trim().length > 0);
const answer: fc.Arbitrary<Answer> = fc.record({
  text: fc.stringMatching(/^[a-z]{0,5}$/),
  reasoning: fc.option(word, { nil: null }),
  call: fc.option(
    fc.record({ key: fc.constantFrom("x", "y", "z"), value: fc.integer({ min: -5, max: 99 }) }),
    {
      nil: null,
    },
  ),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("append" as const), text: word, answer }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("branch" as const), pick: fc.nat(), text: word, answer }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("drift" as const),
      pick: fc.nat(),
      edit: fc.constantFrom<Edit>("drop_reasoning", "whitespace", "redact", "new_call_id"),
      text: word,
      answer,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("reset" as const), text: word, answer }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("retry" as const), answer }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fail" as const), text: word }) },
);

/** Deterministic PRNG for key shuffles. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The same JSON value with object keys in random order, and tool arguments re-serialised Python-style or not. */
function shuffleKeys(value: unknown, random: () => number, key?: string): unknown {
  if (key === "arguments" && typeof value === "string") {
    const parsed = JSON.parse(value) as Record<string, unknown>;
    const [sep, colon] = random() < 0.5 ? [", ", ": "] : [",", ":"];
    const members = shuffled(Object.keys(parsed), random).map(
      (k) => `${JSON.stringify(k)}${colon}${JSON.stringify(parsed[k])}`,
    );
    return `{${members.join(sep)}}`;
  }
  if (Array.isArray(value)) return value.map((item) => shuffleKeys(item, random));
  if (value !== null && typeof value === "object") {
    const entries = shuffled(Object.entries(value), random);
    return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, random, k)]));
  }
  return value;
}

function toMessage(a: Answer, turn: number): AssistantMessage {
  const message: AssistantMessage = { role: "assistant", content: a.text };
  if (a.reasoning !== null) message.reasoning_content = a.reasoning;
  if (a.call !== null) {
    message.tool_calls = [
      {
        id: `call_${turn}`,
        type: "function",
        function: { name: "f", arguments: JSON.stringify({ [a.call.key]: a.call.value, n: "v" }) },
      },
    ];
  }
  // Gateways commit canonical messages (sorted, compact arguments).
  return canonicalizeMessages([message])[0] as AssistantMessage;
}

function editCopy(message: AssistantMessage, edit: Edit): AssistantMessage {
  const copy = structuredClone(message);
  switch (edit) {
    case "drop_reasoning":
      delete copy.reasoning_content;
      break;
    case "whitespace":
      copy.content = `  ${copy.content as string}\n`;
      break;
    case "redact":
      if ((copy.content as string).length > 0) copy.content = "***";
      break;
    case "new_call_id":
      for (const call of copy.tool_calls ?? []) call.id = `other_${call.id}`;
      break;
  }
  return copy;
}

interface Run {
  forest: SessionForest;
  committed: Array<{ plan: TurnPlan; outputIds: number[]; stateHash: string }>;
  transitions: string[];
}

/** Plays the ops as an agent would: its own copy of history, sent whole on every request. */
function play(ops: Op[], policy: MatchPolicy, seed: number | null, restoreAt = -1): Run {
  const renderer = createCharRenderer();
  let forest = new SessionForest({ sessionId: "p", renderer, policy });
  const random = mulberry32(seed ?? 1);
  const histories: ChatMessage[][] = [];
  let last: ChatMessage[] | undefined;
  const committed: Run["committed"] = [];
  const transitions: string[] = [];
  const send = (messages: ChatMessage[]) =>
    forest.beginTurn({
      messages: seed === null ? messages : canonicalizeMessages(shuffleKeys(messages, random)),
      tools: [],
      chatTemplateKwargs: {},
    });
  ops.forEach((item, turn) => {
    if (turn === restoreAt) {
      forest = SessionForest.fromSnapshot(JSON.stringify(forest.toSnapshot()), { renderer });
    }
    let messages: ChatMessage[];
    const latest = histories[histories.length - 1];
    if (item.kind === "reset" || latest === undefined) {
      messages = [
        { role: "system", content: `sys ${turn}` },
        { role: "user", content: item.kind === "retry" ? "q" : item.text },
      ];
    } else if (item.kind === "append" || item.kind === "fail") {
      messages = [...latest, { role: "user", content: item.text }];
    } else if (item.kind === "branch") {
      const base = histories[item.pick % histories.length]!;
      const cut = base.slice(0, 2 + 2 * ((item.pick >> 3) % Math.max(1, (base.length - 1) >> 1)));
      messages = [...cut, { role: "tool", content: item.text, tool_call_id: "t" }];
    } else if (item.kind === "drift") {
      const assistants = latest.flatMap((m, i) => (m.role === "assistant" ? [i] : []));
      const index = assistants[item.pick % assistants.length]!;
      messages = latest.map((m, i) => (i === index ? editCopy(m as AssistantMessage, item.edit) : m));
      messages.push({ role: "user", content: item.text });
    } else {
      messages = last ?? latest;
    }
    const plan = send(messages);
    last = messages;
    transitions.push(plan.transition);
    if (item.kind === "fail") {
      forest.failTurn(plan, { reason: "boom" });
      return;
    }
    const message = toMessage(item.answer, turn);
    const outputIds = renderer.renderResponse(message);
    const result = forest.commitResponse(plan, {
      outputIds,
      logprobs: outputIds.map((_, i) => fakeLogprob(plan.turnId, i)),
      finishReason: "stop",
      message,
      weightVersion: `w${turn % 3}`,
    });
    if (result.created) committed.push({ plan, outputIds, stateHash: result.node.stateHash });
    histories.push([...messages, message]);
  });
  return { forest, committed, transitions };
}

function checkSamples(forest: SessionForest, committed: Run["committed"]): void {
  const renderer = createCharRenderer();
  for (const node of forest.nodes()) {
    if (node.kind === "root") continue;
    const lineage = forest.lineage(node.stateHash);
    const exportable = lineage.some((n) => n.kind === "response");
    if (!exportable) {
      expect(() => forest.buildSample(node.stateHash)).toThrowError(/has no committed response/);
      continue;
    }
    const sample = forest.buildSample(node.stateHash);
    // tokens = concatenation of the deltas along the lineage
    expect(sample.tokens).toEqual(lineage.flatMap((n) => Array.from(n.tokens)));
    expect(sample.tokens.length).toBe(sample.promptLength + sample.responseLength);
    expect(sample.lossMask.length).toBe(sample.responseLength);
    expect(sample.rolloutLogProbs.length).toBe(sample.responseLength);
    // loss_mask sums to the generated tokens of the lineage; logprobs align 1:1 with them
    const responses = lineage.filter((n) => n.kind === "response");
    expect(sample.lossMask.reduce((a, b) => a + b, 0)).toBe(
      responses.reduce((a, n) => a + n.tokens.length, 0),
    );
    const expected: number[] = [];
    for (const n of lineage.slice(lineage.indexOf(responses[0]!))) {
      for (let i = 0; i < n.tokens.length; i++)
        expected.push(n.kind === "response" ? fakeLogprob(n.turnId, i) : 0);
    }
    expect(sample.rolloutLogProbs).toEqual(expected);
    // the prefix-stable character template: the lineage equals one render of the committed state
    expect(sample.tokens).toEqual(
      renderer.renderState(forest.conversationState(node.stateHash), {
        addGenerationPrompt: node.kind === "observation",
      }),
    );
  }
  // what was sent to the engine plus what it returned is exactly the response's sample
  for (const { plan, outputIds, stateHash } of committed) {
    expect(forest.buildSample(stateHash).tokens).toEqual([...plan.inputIds, ...outputIds]);
  }
}

describe("SessionForest properties (random append / branch / drift / reset / retry / fail)", () => {
  it("should keep samples exact, aligned and equal to the lineage deltas", () => {
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 1, maxLength: 18 }),
        fc.constantFrom<MatchPolicy>("tolerant", "exact"),
        (ops, policy) => {
          const { forest, committed } = play(ops, policy, null);
          checkSamples(forest, committed);
        },
      ),
      { numRuns: 120 },
    );
  });

  it("should not depend on JSON key order or argument spelling", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 14 }), fc.integer(), (ops, seed) => {
        const plain = play(ops, "tolerant", null);
        const shuffledRun = play(ops, "tolerant", seed);
        expect(shuffledRun.transitions).toEqual(plain.transitions);
        expect(shuffledRun.forest.toSnapshot()).toEqual(plain.forest.toSnapshot());
      }),
      { numRuns: 60 },
    );
  });

  it("should round-trip through a JSON snapshot and keep working identically", () => {
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 1, maxLength: 14 }),
        fc.array(op, { minLength: 1, maxLength: 4 }),
        fc.constantFrom<MatchPolicy>("tolerant", "exact"),
        (ops, more, policy) => {
          const { forest } = play(ops, policy, null);
          const snapshot = forest.toSnapshot();
          const restored = SessionForest.fromSnapshot(JSON.stringify(snapshot), {
            renderer: createCharRenderer(),
          });
          expect(restored.toSnapshot()).toEqual(snapshot);
          expect(restored.stats()).toEqual(forest.stats());
          for (const leaf of forest.exportableLeaves()) {
            expect(restored.buildSample(leaf.stateHash)).toEqual(forest.buildSample(leaf.stateHash));
          }
          // Continuing on a restored forest gives the same forest as never restoring.
          const both = [...ops, ...more];
          const straight = play(both, policy, null);
          const resumed = play(both, policy, null, ops.length);
          expect(resumed.transitions).toEqual(straight.transitions);
          expect(resumed.forest.toSnapshot()).toEqual(straight.forest.toSnapshot());
        },
      ),
      { numRuns: 60 },
    );
  });

  it("should keep linear histories one context under the tolerant policy, drift included", () => {
    const linearOp = fc.oneof(
      fc.record({ kind: fc.constant("append" as const), text: word, answer }),
      fc.record({
        kind: fc.constant("drift" as const),
        pick: fc.nat(),
        edit: fc.constantFrom<Edit>("drop_reasoning", "whitespace", "new_call_id"),
        text: word,
        answer,
      }),
    );
    fc.assert(
      fc.property(fc.array(linearOp, { minLength: 1, maxLength: 16 }), (ops) => {
        const { forest, transitions } = play(ops, "tolerant", null);
        expect(transitions.every((t) => t === "append" || t === "drift")).toBe(true);
        expect(forest.stats().subtrees).toBe(1);
        const leaf = forest.implicitExportLeaf();
        expect(forest.buildSample(leaf.stateHash).turnCount).toBe(ops.length);
      }),
      { numRuns: 80 },
    );
  });
});
