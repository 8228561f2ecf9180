import type { WeightVersionSpan } from "@relax/forest";
import {
  createRequestId,
  type FinishReason,
  type GenerateOptions,
  type GenerateResult,
  type SamplingParams,
} from "@relax/sglang";
import {
  classifyEngineFault,
  type EngineFaultHold,
  type EngineFaultKind,
  type EngineFaultTurn,
} from "../engine-fault/engine-fault-hold";
import type { GateTicket, GenerationGate } from "../gate/generation-gate";

/** Options of {@link generateWithContinuation}. */
export interface GenerateWithContinuationOptions {
  /** Issues one `/generate` call (the turn runner's engine call, errors already mapped). */
  generate: (request: GenerateOptions) => Promise<GenerateResult>;
  /** The run's pause/resume gate; without one, this is a single engine call. */
  gate?: GenerationGate;
  /** The turn's prompt: the lineage token ids. */
  inputIds: ArrayLike<number>;
  /** Sampling of the turn; `maxNewTokens` is the planned budget of the whole turn. */
  sampling: SamplingParams & { maxNewTokens: number };
  /** The request's signal (client disconnect or session close). */
  signal: AbortSignal;
  routingKey?: string;
  /** Called around every engine call (session counters). */
  onEngineStart?: () => void;
  onEngineEnd?: () => void;
  /** Decodes ids (special tokens kept), to check stop strings in a partial output. */
  decode: (ids: readonly number[]) => string;
  /**
   * Asked before each engine call: `true` makes the call bypass the gate (a protected session, see
   * docs/contract.md#cross-step-scheduling): it starts on a closed gate under a protected rid and no pause
   * aborts it. @default never
   */
  bypassGate?: () => boolean;
  /** Called each time a pause aborted this turn's engine call and its partial output was kept. */
  onPauseAbort?: () => void;
  /**
   * Engine failures of this turn's calls (an abort Relax did not ask for, a reset, a 5xx, a timeout, a
   * hung worker) are held and continued like pauses, within its budget (see {@link EngineFaultHold}).
   * Without it, a failure ends the turn at once.
   */
  faults?: EngineFaultHold;
  /** The session's label, for the hold's log lines. */
  sessionId?: string;
}

/**
 * How a turn's engine calls were scheduled (the debug dump's request kind, see
 * docs/contract.md#cross-step-scheduling): `fresh` (never aborted, never bypassing), `resumed` (a pause
 * aborted it at least once and it continued from its partial output), `protected` (at least one call
 * bypassed the gate because its session was protected).
 */
export type RequestKind = "fresh" | "resumed" | "protected";

/** A turn's generation, possibly assembled from several engine calls. */
export interface ContinuedGeneration {
  /** Every generated id, segments concatenated in order. */
  outputIds: number[];
  /** 1:1 with `outputIds`. */
  outputLogprobs: number[];
  finishReason: FinishReason;
  /** The first engine call's prompt tokens (the turn's prompt). */
  promptTokens: number;
  /** `outputIds.length` summed over the segments as the engine counted them. */
  completionTokens: number;
  /** Prompt tokens served from the prefix cache on the first engine call. */
  cachedTokens: number;
  /** Set when one version labels every generated token. */
  weightVersion?: string;
  /** Per-span versions over `outputIds` (`[start, end)`, tiling it), set when the turn was continued. */
  weightVersionSpans?: WeightVersionSpan[];
  /** How often a pause aborted this turn and it continued from its partial output. */
  abortCount: number;
  /** How often an engine failure held this turn and it continued (from its partial output, if any). */
  engineFaults: number;
  /** The turn's request kind: `protected` wins over `resumed`, which wins over `fresh`. */
  kind: RequestKind;
  /** The rid of every engine call, in order. */
  rids: string[];
  /** Milliseconds waiting at the closed gate. */
  heldMs: number;
  /** Milliseconds in engine calls. */
  engineMs: number;
}

/**
 * Runs a turn's generation through the pause/resume gate. Before each engine call it waits for the gate
 * to be open. When a call returns `finish_reason: abort` because the gate paused it — not a client
 * disconnect, not an engine-side abort — the partial output ids and logprobs are kept, and once the gate
 * reopens `/generate` is issued again with `inputIds = prompt ++ partial ids`, `maxNewTokens = planned −
 * produced`, the same sampling and a new rid, so no generated token is lost or generated twice. A partial
 * that already ends in a stop token id (or holds a stop string) or used the whole budget is not continued.
 *
 * Seeds: the turn's `seed` is sent unchanged with every continuation. SGLang's seeded sampling (used with
 * its deterministic inference on) draws each token from a hash of the seed and the token's position in the
 * sequence, and a continuation keeps the positions, so the sample does not restart: under unchanged
 * weights it draws what the uninterrupted request would have drawn.
 *
 * Weight versions: each segment is labelled by the engine's `weight_versions` spans, else its
 * `weight_version`, else the gate's trainer-named version when the call started; when some segment has no
 * label at all, no spans are reported.
 *
 * @throws whatever `generate` throws, and the signal's reason when the request aborts while held.
 */
export async function generateWithContinuation(
  options: GenerateWithContinuationOptions,
): Promise<ContinuedGeneration> {
  const { sampling, signal } = options;
  const planned = sampling.maxNewTokens;
  const stopTokenIds = new Set(sampling.stopTokenIds ?? []);
  const turn = newTurnProgress();
  const ticket = options.gate?.openTicket();
  try {
    for (;;) {
      const attempt = await callEngine(options, turn, ticket);
      if (attempt.thrown === undefined) addSegment(turn, attempt.result, attempt.gateVersion);
      const fault = engineFaultOf(options, attempt);
      if (fault !== undefined) {
        if (!(await holdEngineFault(options, turn, fault, attempt))) {
          if (attempt.thrown !== undefined) throw attempt.thrown.error;
          return assembleGeneration(turn, attempt.result.finishReason);
        }
      } else if (attempt.result!.finishReason.type !== "abort" || !attempt.abortedByPause || signal.aborted) {
        return assembleGeneration(turn, attempt.result!.finishReason);
      } else {
        turn.abortCount++;
        options.onPauseAbort?.();
      }
      const end = continuationEnd(turn.outputIds, planned, stopTokenIds, options.decode, sampling.stop);
      if (end !== undefined) return assembleGeneration(turn, end);
    }
  } finally {
    ticket?.close();
  }
}

/** What a turn's engine calls produced so far (kept across its calls by {@link generateWithContinuation}). */
interface TurnProgress {
  /** Every generated id so far, segments concatenated. */
  outputIds: number[];
  outputLogprobs: number[];
  /** Per-segment version spans over `outputIds`. */
  spans: WeightVersionSpan[];
  /** `false` once a non-empty segment had no version label. */
  labelled: boolean;
  rids: string[];
  abortCount: number;
  engineFaults: number;
  heldMs: number;
  engineMs: number;
  /** The first engine result (prompt tokens, cached tokens, single-call labels). */
  first: GenerateResult | undefined;
  completionTokens: number;
  /** The gate's weight version when the first call started. */
  firstGateVersion: string | undefined;
  /** Some call bypassed the gate (a protected session). */
  bypassed: boolean;
  /** Engine results that carried output so far (more than one: the turn was assembled from segments). */
  segments: number;
  /** The engine-failure history handed to the hold. */
  faultTurn: EngineFaultTurn;
}

function newTurnProgress(): TurnProgress {
  return {
    outputIds: [],
    outputLogprobs: [],
    spans: [],
    labelled: true,
    rids: [],
    abortCount: 0,
    engineFaults: 0,
    heldMs: 0,
    engineMs: 0,
    first: undefined,
    completionTokens: 0,
    firstGateVersion: undefined,
    bypassed: false,
    segments: 0,
    faultTurn: { attempts: 0, heldMs: 0 },
  };
}

/** How one engine call ended: its result, or an engine failure it threw (held when `faults` is set). */
type EngineAttempt = {
  /** Whether a pause of the gate caused the call's `finish_reason: abort`. */
  abortedByPause: boolean;
  /** The gate's trainer-named weight version when the call started. */
  gateVersion: string | undefined;
} & (
  | { result: GenerateResult; thrown?: undefined }
  | { result?: undefined; thrown: { kind: EngineFaultKind; error: unknown } }
);

/**
 * One engine call of the turn: waits at the gate (its held time counted), then issues `/generate` for
 * the prompt followed by the output so far, with the rest of the planned budget, under the fault hold's
 * progress check when there is one.
 * @throws what `generate` throws, unless it is an engine failure and `faults` is set (then it is returned
 *   as `thrown`); the signal's reason when the request aborts at the gate.
 */
async function callEngine(
  options: GenerateWithContinuationOptions,
  turn: TurnProgress,
  ticket: GateTicket | undefined,
): Promise<EngineAttempt> {
  const { gate, faults, signal, sampling } = options;
  // Through a gate, rids carry its pause-epoch prefix so that a pause aborts them with one call per
  // worker; the gate makes the rid when it admits the call (a protected rid for a bypassing call).
  let rid = createRequestId();
  if (ticket !== undefined) {
    const heldFrom = performance.now();
    rid = await ticket.acquire({
      signal,
      ...(options.bypassGate !== undefined ? { bypass: options.bypassGate } : {}),
    });
    turn.heldMs += performance.now() - heldFrom;
    if (gate?.isProtectedRid(rid)) turn.bypassed = true;
  }
  const gateVersion = gate?.weightVersion;
  if (turn.rids.length === 0) turn.firstGateVersion = gateVersion;
  const engineFrom = performance.now();
  turn.rids.push(rid);
  options.onEngineStart?.();
  let result: GenerateResult | undefined;
  let abortedByPause = false;
  let thrown: { kind: EngineFaultKind; error: unknown } | undefined;
  try {
    const { outputIds } = turn;
    const call = options.generate({
      inputIds: outputIds.length === 0 ? options.inputIds : [...Array.from(options.inputIds), ...outputIds],
      rid,
      signal,
      ...(options.routingKey !== undefined ? { routingKey: options.routingKey } : {}),
      sampling: { ...sampling, maxNewTokens: sampling.maxNewTokens - outputIds.length },
    });
    try {
      result = faults !== undefined ? await faults.watch(call, { rid }) : await call;
    } catch (error) {
      const kind = faults !== undefined && !signal.aborted ? classifyEngineFault({ error }) : undefined;
      if (kind === undefined) throw error;
      thrown = { kind, error };
    }
  } finally {
    options.onEngineEnd?.();
    turn.engineMs += performance.now() - engineFrom;
    if (ticket !== undefined) {
      // `result` is unset when generate threw: not a partial to continue.
      abortedByPause = ticket.release({
        aborted: typeof result === "object" && result.finishReason.type === "abort",
      }).abortedByPause;
    }
  }
  if (thrown !== undefined) return { abortedByPause, gateVersion, thrown };
  return { abortedByPause, gateVersion, result: result! };
}

/** Appends an engine result's output, logprobs, token count and version spans to the turn. */
function addSegment(turn: TurnProgress, result: GenerateResult, gateVersion: string | undefined): void {
  turn.first ??= result;
  const offset = turn.outputIds.length;
  turn.outputIds.push(...result.outputIds);
  turn.outputLogprobs.push(...result.outputLogprobs);
  turn.completionTokens += result.completionTokens;
  if (result.outputIds.length > 0) turn.segments++;
  turn.labelled &&= addSegmentSpans(turn.spans, result, offset, gateVersion);
}

/**
 * The engine failure of an attempt to hold, with its log message: a failure it threw, or (with `faults`)
 * an abort Relax did not ask for (the engine paused or aborted from outside). `undefined` otherwise.
 */
function engineFaultOf(
  options: GenerateWithContinuationOptions,
  attempt: EngineAttempt,
): { kind: EngineFaultKind; message: string } | undefined {
  const { thrown, result } = attempt;
  if (thrown !== undefined) {
    return {
      kind: thrown.kind,
      message: thrown.error instanceof Error ? thrown.error.message : String(thrown.error),
    };
  }
  const engineAbort =
    options.faults !== undefined &&
    !attempt.abortedByPause &&
    !options.signal.aborted &&
    classifyEngineFault({ finishReason: result.finishReason }) !== undefined;
  if (!engineAbort) return undefined;
  return {
    kind: "engine_abort",
    message: (result.finishReason as { message?: string }).message || "finish_reason abort",
  };
}

/**
 * Holds the turn after an engine failure until its worker is healthy again, within the hold's budget.
 * Returns whether the turn continues (`false`: the budget is spent; the caller ends it with the failure).
 * @throws the signal's reason when the request aborts while held.
 */
async function holdEngineFault(
  options: GenerateWithContinuationOptions,
  turn: TurnProgress,
  fault: { kind: EngineFaultKind; message: string },
  attempt: EngineAttempt,
): Promise<boolean> {
  const faults = options.faults!;
  turn.faultTurn.attempts++;
  if (!faults.admits(turn.faultTurn)) return false;
  const error = attempt.thrown?.error;
  const worker = error instanceof Object ? (error as { url?: unknown }).url : undefined;
  const held = await faults.hold({
    turn: turn.faultTurn,
    kind: fault.kind,
    ...(typeof worker === "string" ? { worker } : {}),
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    signal: options.signal,
    message: fault.message,
  });
  turn.faultTurn.heldMs += held.heldMs;
  turn.heldMs += held.heldMs;
  if (!held.continued) return false;
  turn.engineFaults++;
  return true;
}

/**
 * Why a partial output is not continued: it ends in a stop token id, holds a stop string, or used the
 * whole planned budget. `undefined` when it is continued.
 */
export function continuationEnd(
  outputIds: readonly number[],
  planned: number,
  stopTokenIds: ReadonlySet<number>,
  decode: (ids: readonly number[]) => string,
  stop: string | string[] | undefined,
): FinishReason | undefined {
  const last = outputIds[outputIds.length - 1];
  if (last !== undefined && stopTokenIds.has(last)) return { type: "stop", matched: last };
  const stopString = matchStopString(decode(outputIds), stop);
  if (stopString !== undefined) return { type: "stop", matched: stopString };
  if (outputIds.length >= planned) return { type: "length", length: planned };
  return undefined;
}

/**
 * The turn's generation ending with `finishReason`. Weight versions: a single engine call keeps its own
 * labels (the gate's version as the fallback); a continued turn gets its merged spans, when every segment
 * was labelled.
 */
function assembleGeneration(turn: TurnProgress, finishReason: FinishReason): ContinuedGeneration {
  const { abortCount, engineFaults } = turn;
  const first = turn.first!;
  const base = {
    outputIds: turn.outputIds,
    outputLogprobs: turn.outputLogprobs,
    finishReason,
    promptTokens: first.promptTokens,
    completionTokens: turn.completionTokens,
    cachedTokens: first.cachedTokens,
    abortCount,
    engineFaults,
    kind: turn.bypassed
      ? ("protected" as const)
      : abortCount + engineFaults > 0
        ? ("resumed" as const)
        : ("fresh" as const),
    rids: turn.rids,
    heldMs: turn.heldMs,
    engineMs: turn.engineMs,
  };
  if (turn.segments <= 1 && abortCount + engineFaults === 0) {
    // One engine call: its own labels, the gate's version as the fallback.
    const version = first.weightVersion ?? turn.firstGateVersion;
    return {
      ...base,
      ...(version !== undefined ? { weightVersion: version } : {}),
      ...(first.weightVersionSpans !== undefined ? { weightVersionSpans: first.weightVersionSpans } : {}),
    };
  }
  if (!turn.labelled || turn.spans.length === 0) return base;
  const merged = mergeSpans(turn.spans);
  return {
    ...base,
    ...(merged.length === 1 ? { weightVersion: merged[0]!.version } : {}),
    weightVersionSpans: merged,
  };
}

/** Appends the spans of one segment; returns `false` when a non-empty segment has no version label. */
function addSegmentSpans(
  spans: WeightVersionSpan[],
  result: GenerateResult,
  offset: number,
  gateVersion: string | undefined,
): boolean {
  const length = result.outputIds.length;
  if (length === 0) return true;
  if (result.weightVersionSpans !== undefined && result.weightVersionSpans.length > 0) {
    for (const span of result.weightVersionSpans) {
      spans.push({ version: span.version, start: offset + span.start, end: offset + span.end });
    }
    return true;
  }
  const version = result.weightVersion ?? gateVersion;
  if (version === undefined) return false;
  spans.push({ version, start: offset, end: offset + length });
  return true;
}

function mergeSpans(spans: readonly WeightVersionSpan[]): WeightVersionSpan[] {
  const merged: WeightVersionSpan[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && last.version === span.version && last.end === span.start) last.end = span.end;
    else merged.push({ ...span });
  }
  return merged;
}

function matchStopString(text: string, stop: string | string[] | undefined): string | undefined {
  if (stop === undefined) return undefined;
  for (const candidate of typeof stop === "string" ? [stop] : stop) {
    if (candidate !== "" && text.includes(candidate)) return candidate;
  }
  return undefined;
}
