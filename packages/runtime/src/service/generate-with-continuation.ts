import type { WeightVersionSpan } from "@relax/forest";
import {
  createRequestId,
  type FinishReason,
  type GenerateOptions,
  type GenerateResult,
  type SamplingParams,
} from "@relax/sglang";
import { classifyEngineFault, type EngineFaultHold, type EngineFaultKind } from "./engine-fault-hold";
import type { GenerationGate } from "./generation-gate";

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
  const { generate, gate, inputIds, sampling, signal } = options;
  const planned = sampling.maxNewTokens;
  const stopTokenIds = new Set(sampling.stopTokenIds ?? []);
  const outputIds: number[] = [];
  const outputLogprobs: number[] = [];
  const spans: WeightVersionSpan[] = [];
  let labelled = true;
  const rids: string[] = [];
  let abortCount = 0;
  let heldMs = 0;
  let engineMs = 0;
  let first: GenerateResult | undefined;
  let completionTokens = 0;
  let firstGateVersion: string | undefined;
  let bypassed = false;
  /** Engine results that carried output so far (more than one: the turn was assembled from segments). */
  let segments = 0;
  const faultTurn = { attempts: 0, heldMs: 0 };
  let engineFaults = 0;
  const faults = options.faults;
  const ticket = gate?.openTicket();
  try {
    for (;;) {
      // Through a gate, rids carry its pause-epoch prefix so that a pause aborts them with one call per
      // worker; the gate makes the rid when it admits the call (a protected rid for a bypassing call).
      let rid = createRequestId();
      if (ticket !== undefined) {
        const heldFrom = performance.now();
        rid = await ticket.acquire({
          signal,
          ...(options.bypassGate !== undefined ? { bypass: options.bypassGate } : {}),
        });
        heldMs += performance.now() - heldFrom;
        if (gate?.isProtectedRid(rid)) bypassed = true;
      }
      const gateVersion = gate?.weightVersion;
      if (rids.length === 0) firstGateVersion = gateVersion;
      const engineFrom = performance.now();
      rids.push(rid);
      options.onEngineStart?.();
      let result: GenerateResult;
      let abortedByPause = false;
      // An engine failure that threw (reset, 5xx, timeout, hung worker): held below when `faults` is set.
      let thrown: { kind: EngineFaultKind; error: unknown } | undefined;
      try {
        const call = generate({
          inputIds: outputIds.length === 0 ? inputIds : [...Array.from(inputIds), ...outputIds],
          rid,
          signal,
          ...(options.routingKey !== undefined ? { routingKey: options.routingKey } : {}),
          sampling: { ...sampling, maxNewTokens: planned - outputIds.length },
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
        engineMs += performance.now() - engineFrom;
        if (ticket !== undefined) {
          // `result` is unassigned when generate threw: not a partial to continue.
          abortedByPause = ticket.release({
            aborted: typeof result! === "object" && result.finishReason.type === "abort",
          }).abortedByPause;
        }
      }
      if (thrown === undefined) {
        first ??= result!;
        const offset = outputIds.length;
        outputIds.push(...result!.outputIds);
        outputLogprobs.push(...result!.outputLogprobs);
        completionTokens += result!.completionTokens;
        if (result!.outputIds.length > 0) segments++;
        labelled &&= addSegmentSpans(spans, result!, offset, gateVersion);
      }
      // An abort Relax did not ask for (the engine paused or aborted from outside): held like a throw.
      const engineAbort =
        thrown === undefined &&
        faults !== undefined &&
        !abortedByPause &&
        !signal.aborted &&
        classifyEngineFault({ finishReason: result!.finishReason }) !== undefined;
      if (thrown !== undefined || engineAbort) {
        faultTurn.attempts++;
        const kind = thrown?.kind ?? "engine_abort";
        const message =
          thrown !== undefined
            ? thrown.error instanceof Error
              ? thrown.error.message
              : String(thrown.error)
            : (result!.finishReason as { message?: string }).message || "finish_reason abort";
        const end = () => {
          if (thrown !== undefined) throw thrown.error;
          return finish(result!.finishReason);
        };
        if (!faults!.admits(faultTurn)) return end();
        const worker = thrown?.error instanceof Object ? (thrown.error as { url?: unknown }).url : undefined;
        const held = await faults!.hold({
          turn: faultTurn,
          kind,
          ...(typeof worker === "string" ? { worker } : {}),
          ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
          signal,
          message,
        });
        faultTurn.heldMs += held.heldMs;
        heldMs += held.heldMs;
        if (!held.continued) return end();
        engineFaults++;
      } else if (result!.finishReason.type !== "abort" || !abortedByPause || signal.aborted) {
        return finish(result!.finishReason);
      } else {
        abortCount++;
        options.onPauseAbort?.();
      }
      const last = outputIds[outputIds.length - 1];
      if (last !== undefined && stopTokenIds.has(last)) return finish({ type: "stop", matched: last });
      const stopString = matchStopString(options.decode(outputIds), sampling.stop);
      if (stopString !== undefined) return finish({ type: "stop", matched: stopString });
      if (outputIds.length >= planned) return finish({ type: "length", length: planned });
    }
  } finally {
    ticket?.close();
  }

  function finish(finishReason: FinishReason): ContinuedGeneration {
    const base = {
      outputIds,
      outputLogprobs,
      finishReason,
      promptTokens: first!.promptTokens,
      completionTokens,
      cachedTokens: first!.cachedTokens,
      abortCount,
      engineFaults,
      kind: bypassed
        ? ("protected" as const)
        : abortCount + engineFaults > 0
          ? ("resumed" as const)
          : ("fresh" as const),
      rids,
      heldMs,
      engineMs,
    };
    if (segments <= 1 && abortCount + engineFaults === 0) {
      // One engine call: its own labels, the gate's version as the fallback.
      const version = first!.weightVersion ?? firstGateVersion;
      return {
        ...base,
        ...(version !== undefined ? { weightVersion: version } : {}),
        ...(first!.weightVersionSpans !== undefined ? { weightVersionSpans: first!.weightVersionSpans } : {}),
      };
    }
    if (!labelled || spans.length === 0) return base;
    const merged = mergeSpans(spans);
    return {
      ...base,
      ...(merged.length === 1 ? { weightVersion: merged[0]!.version } : {}),
      weightVersionSpans: merged,
    };
  }
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
