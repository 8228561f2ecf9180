import {
  assistantMessageSchema,
  chatMessageSchema,
  chatTemplateKwargsSchema,
  formatFieldPath,
  functionToolSchema,
  mediaItemSchema,
} from "@relax/chat";
import { z } from "zod";
import { SnapshotError } from "../errors/snapshot-error";
import type { InternalNode, InternalObservation, InternalResponse } from "../node/forest-node";
import { ROOT_STATE_HASH } from "../state/state-hash";
import type { TurnRecord } from "../turn/turn-record";
import { type KnownNode, knownNode, restoreObservation, restoreResponse } from "./restore-node";

/** Format tag of version 1 snapshots. */
export const FOREST_SNAPSHOT_FORMAT = "relax.forest.snapshot.v1";

const hash = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits");
const tokenId = z.number().int().min(0).max(0x7fffffff);
const jsonObject = z.record(z.string(), z.unknown());
const span = z.object({
  version: z.string().min(1),
  start: z.number().int().min(0),
  end: z.number().int().min(1),
});
const edit = z.object({
  kind: z.enum([
    "reasoning_dropped",
    "reasoning_inlined",
    "tool_arguments_reserialized",
    "tool_call_id_changed",
    "whitespace_changed",
    "value_redacted",
    "empty_content_replaced",
    "rewritten",
  ]),
  path: z.string(),
});

const observationSchema = z.object({
  kind: z.literal("observation"),
  stateHash: hash,
  parentStateHash: hash,
  turnId: z.number().int().min(0),
  messages: z.array(chatMessageSchema).min(1),
  tokens: z.array(tokenId),
  trainTokens: z.array(tokenId).optional(),
  media: z.array(mediaItemSchema).optional(),
  tools: z.array(functionToolSchema).optional(),
  chatTemplateKwargs: chatTemplateKwargsSchema.optional(),
  resetFrom: hash.optional(),
  supersededBy: hash.optional(),
  failure: z.string().optional(),
});

const responseSchema = z.object({
  kind: z.literal("response"),
  stateHash: hash,
  parentStateHash: hash,
  turnId: z.number().int().min(0),
  message: assistantMessageSchema,
  tokens: z.array(tokenId).min(1),
  logprobs: z.array(z.number()),
  finishReason: z.enum(["stop", "length", "abort"]),
  weightVersionSpans: z.array(span),
  timing: z
    .object({ wallSeconds: z.number().min(0).optional(), generationSeconds: z.number().min(0).optional() })
    .optional(),
  metadata: jsonObject.optional(),
});

const turnSchema = z.object({
  turnId: z.number().int().min(0),
  requestId: z.string().optional(),
  parentStateHash: hash,
  observationStateHash: hash,
  observationCreated: z.boolean(),
  requestMessages: z.number().int().min(1),
  matchedMessages: z.number().int().min(0),
  transition: z.enum(["append", "branch", "drift", "reset"]),
  linear: z.boolean(),
  segment: z.enum(["compaction", "agent"]).optional(),
  toleratedEdits: z.array(z.string()),
  edits: z.array(edit),
  promptTokens: z.number().int().min(0),
  /** Absent in snapshots written before images were supported: then equal to `promptTokens`. */
  trainPromptTokens: z.number().int().min(0).optional(),
  observationTokens: z.number().int().min(0),
  maxNewTokens: z.number().int().min(1).optional(),
  status: z.enum(["pending", "committed", "failed"]),
  responseStateHash: hash.optional(),
  failure: z.string().optional(),
  replayOf: z.number().int().min(0).optional(),
});

/** zod schema of a {@link ForestSnapshot}. */
export const forestSnapshotSchema = z.object({
  format: z.literal(FOREST_SNAPSHOT_FORMAT),
  sessionId: z.string().min(1),
  rolloutId: z.string(),
  policy: z.enum(["tolerant", "exact"]),
  maxContextTokens: z.number().int().min(1).optional(),
  metadata: jsonObject.optional(),
  redactionMarkers: z.array(z.string()),
  latestResponse: hash.optional(),
  nodes: z.array(z.discriminatedUnion("kind", [observationSchema, responseSchema])),
  turns: z.array(turnSchema),
});

/**
 * A forest as plain JSON (`SessionForest.toSnapshot`): options, every node except the technical root in
 * commit order (parents first; token ids and logprobs as number arrays), and the turn log.
 */
export type ForestSnapshot = z.infer<typeof forestSnapshotSchema>;
type SnapshotNode = ForestSnapshot["nodes"][number];

/**
 * The settings of a forest that a snapshot keeps, as the forest exposes them (a `SessionForest` is one);
 * `SessionForest.fromSnapshot` constructs the restored forest with them.
 */
export interface ForestSettings {
  readonly sessionId: string;
  readonly rolloutId: string;
  readonly policy: "tolerant" | "exact";
  readonly maxContextTokens?: number | undefined;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  readonly redactionMarkers: readonly string[];
}

/**
 * Writes a snapshot of a forest: its settings, and its internals (nodes in commit order, root first; the
 * turn log; the latest committed response).
 */
export function writeSnapshot(
  settings: ForestSettings,
  contents: {
    latestResponse?: string | undefined;
    nodes: readonly InternalNode[];
    turns: readonly TurnRecord[];
  },
): ForestSnapshot {
  const nodes: SnapshotNode[] = [];
  for (const node of contents.nodes) {
    if (node.kind === "root") continue;
    const base = {
      stateHash: node.stateHash,
      parentStateHash: node.parentStateHash as string,
      turnId: node.turnId,
      tokens: Array.from(node.tokens),
    };
    if (node.kind === "observation") {
      nodes.push(
        structuredClone({
          kind: "observation",
          ...base,
          messages: node.messages,
          ...(node.trainTokens !== undefined && { trainTokens: Array.from(node.trainTokens) }),
          ...(node.media !== undefined && { media: node.media }),
          ...(node.tools !== undefined && { tools: node.tools }),
          ...(node.chatTemplateKwargs !== undefined && { chatTemplateKwargs: node.chatTemplateKwargs }),
          ...(node.resetFrom !== undefined && { resetFrom: node.resetFrom }),
          ...(node.supersededBy !== undefined && { supersededBy: node.supersededBy }),
          ...(node.failure !== undefined && { failure: node.failure }),
        }) as SnapshotNode,
      );
    } else {
      nodes.push(
        structuredClone({
          kind: "response",
          ...base,
          message: node.message,
          logprobs: Array.from(node.logprobs),
          finishReason: node.finishReason,
          weightVersionSpans: node.weightVersionSpans,
          ...(node.timing !== undefined && { timing: node.timing }),
          ...(node.metadata !== undefined && { metadata: node.metadata }),
        }) as SnapshotNode,
      );
    }
  }
  const snapshot: ForestSnapshot = {
    format: FOREST_SNAPSHOT_FORMAT,
    sessionId: settings.sessionId,
    rolloutId: settings.rolloutId,
    policy: settings.policy,
    redactionMarkers: [...settings.redactionMarkers],
    nodes,
    turns: contents.turns.map((turn) => structuredClone({ ...turn }) as ForestSnapshot["turns"][number]),
  };
  if (settings.maxContextTokens !== undefined) snapshot.maxContextTokens = settings.maxContextTokens;
  if (settings.metadata !== undefined)
    snapshot.metadata = structuredClone(settings.metadata) as Record<string, unknown>;
  if (contents.latestResponse !== undefined) snapshot.latestResponse = contents.latestResponse;
  return snapshot;
}

function fail(path: string, reason: string): never {
  throw new SnapshotError({ path, reason });
}

/**
 * A snapshot (object or JSON text) checked against {@link forestSnapshotSchema}, as a private deep copy
 * of the input itself: zod drops keys it does not know and orders the ones it does, and both would break
 * losslessness (and the hashes).
 *
 * @throws SnapshotError for text that is not JSON, a value that cannot be cloned, or the first schema
 *   issue (at its path, `$` for the root).
 */
export function parseSnapshotInput(input: unknown): ForestSnapshot {
  let raw = input;
  if (typeof raw === "string") {
    try {
      raw = JSON.parse(raw);
    } catch (error) {
      throw new SnapshotError({ path: "$", reason: "is not valid JSON", cause: error });
    }
  }
  let source: ForestSnapshot;
  try {
    source = structuredClone(raw) as ForestSnapshot;
  } catch (error) {
    throw new SnapshotError({ path: "$", reason: "is not a JSON value", cause: error });
  }
  const parsed = forestSnapshotSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(formatFieldPath(issue.path) || "$", issue.message);
  }
  return source;
}

/**
 * Validates a snapshot (object or JSON text) and rebuilds its nodes (root excluded, children empty),
 * recomputing every state hash from its parent and messages.
 *
 * @throws SnapshotError naming the offending path.
 */
export function readSnapshot(input: unknown): {
  snapshot: ForestSnapshot;
  nodes: Array<InternalObservation | InternalResponse>;
  turns: TurnRecord[];
} {
  const snapshot = parseSnapshotInput(input);
  const known = new Map<string, KnownNode>([
    [ROOT_STATE_HASH, { kind: "root", prefix: 0, trainPrefix: 0, messages: 0 }],
  ]);
  const nodes: Array<InternalObservation | InternalResponse> = [];
  snapshot.nodes.forEach((node, i) => {
    const path = `nodes[${i}]`;
    const parent =
      known.get(node.parentStateHash) ?? fail(`${path}.parentStateHash`, "does not name an earlier node");
    if (known.has(node.stateHash)) fail(`${path}.stateHash`, "is duplicated");
    if (node.turnId >= snapshot.turns.length) fail(`${path}.turnId`, "does not name a recorded turn");
    const context = { path, parent, order: i + 1 };
    nodes.push(
      node.kind === "observation" ? restoreObservation(node, context) : restoreResponse(node, context),
    );
    known.set(node.stateHash, knownNode(node, parent));
  });
  snapshot.turns.forEach((turn, i) => {
    if (turn.turnId !== i) fail(`turns[${i}].turnId`, `must be ${i}`);
    if (!known.has(turn.observationStateHash))
      fail(`turns[${i}].observationStateHash`, "does not name a node");
  });
  const turns = snapshot.turns.map((turn) => ({
    ...turn,
    trainPromptTokens: turn.trainPromptTokens ?? turn.promptTokens,
  })) as TurnRecord[];
  return { snapshot, nodes, turns };
}
