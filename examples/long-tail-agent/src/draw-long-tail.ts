import { createHash } from "node:crypto";

/** Parameters of the heavy-tailed draw (medians and log-space spreads of two lognormals). */
export interface LongTailParams {
  /** Median model turns per session. @default 3 */
  turnMedian: number;
  /** σ of ln(turns). @default 0.8 */
  turnSigma: number;
  /** Most turns a session makes (the tail is cut here). @default 12 */
  maxTurns: number;
  /** Median tool latency between two turns, in ms. @default 20 */
  toolMedianMs: number;
  /** σ of ln(tool latency). @default 1 */
  toolSigma: number;
}

/** The defaults of {@link LongTailParams}. */
export const DEFAULT_LONG_TAIL: LongTailParams = {
  turnMedian: 3,
  turnSigma: 0.8,
  maxTurns: 12,
  toolMedianMs: 20,
  toolSigma: 1,
};

/** One session's draw: how many model turns it makes and how long each tool call between them takes. */
export interface LongTailPlan {
  /** Model turns, 1 … maxTurns. */
  turns: number;
  /** `turns − 1` tool latencies in ms (integers ≥ 0), one after each turn but the last. */
  toolLatenciesMs: number[];
}

/**
 * A seeded uniform stream in (0, 1): SHA-256 of `key` and a counter, 48 bits per draw. Same key, same
 * stream, on every machine.
 */
export function seededUniforms(key: string): () => number {
  let counter = 0;
  return () => {
    const digest = createHash("sha256").update(`${key}#${counter++}`).digest();
    return (digest.readUIntBE(0, 6) + 0.5) / 2 ** 48;
  };
}

/** A standard normal draw from two uniforms (Box–Muller). */
function normal(next: () => number): number {
  return Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
}

/**
 * Draws one session's turn count and tool latencies from lognormals: `turns = round(median ·
 * exp(σ·z))` clamped to `[1, maxTurns]`, each latency `median · exp(σ·z)`. Seeded by `key` (e.g. the
 * run seed, the prompt id and the sample position), so a Group's samples differ and a rerun repeats.
 */
export function drawLongTail(key: string, params: Partial<LongTailParams> = {}): LongTailPlan {
  const p = { ...DEFAULT_LONG_TAIL, ...params };
  const next = seededUniforms(key);
  const turns = Math.min(
    p.maxTurns,
    Math.max(1, Math.round(p.turnMedian * Math.exp(p.turnSigma * normal(next)))),
  );
  const toolLatenciesMs = Array.from({ length: turns - 1 }, () =>
    Math.round(p.toolMedianMs * Math.exp(p.toolSigma * normal(next))),
  );
  return { turns, toolLatenciesMs };
}
