/**
 * Deterministic logprobs for the stand-in engine. The logprob of token `t` after context `c` (prompt ids
 * followed by the ids generated so far) is a pure function of `(seed, weightVersion, c, t)`:
 * - it is `≤ 0` and mostly close to 0, like a confident model's;
 * - the same context gives the same value in any request — so a continuation resumed after an abort
 *   (prompt + partial output) gets the logprobs a single uninterrupted request would have, and prompt
 *   logprobs (`logprob_start_len >= 0`) equal the output logprobs of the turn that produced those ids;
 * - a new weight version changes the values, as new weights would.
 */

const C1 = 0x9e3779b1;
const C2 = 0x85ebca77;
const C3 = 0xc2b2ae3d;

function mix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) h = Math.imul(h ^ text.charCodeAt(index), 0x01000193);
  return mix32(h);
}

/** Rolling hash state of a token context. */
export interface ContextHash {
  h1: number;
  h2: number;
}

/** The logprob model of one engine state (seed and weight version). */
export class StandinLogprobs {
  readonly #salt: number;

  constructor({ seed, weightVersion }: { seed: number; weightVersion: string }) {
    this.#salt = hashString(`${seed}\u0000${weightVersion}`);
  }

  /** The hash of the empty context. */
  start(): ContextHash {
    return { h1: this.#salt ^ C1, h2: mix32(this.#salt ^ C2) };
  }

  /** The hash after appending `tokenId` (does not mutate `hash`). */
  extend(hash: ContextHash, tokenId: number): ContextHash {
    return {
      h1: mix32(Math.imul(hash.h1 ^ tokenId, C1) + C3),
      h2: mix32(Math.imul(hash.h2 + tokenId, C2) ^ hash.h1),
    };
  }

  /** The hash of a whole context. */
  hashOf(context: ArrayLike<number>): ContextHash {
    let hash = this.start();
    for (let index = 0; index < context.length; index++) hash = this.extend(hash, context[index]!);
    return hash;
  }

  /** Natural-log probability of `tokenId` after the context `hash`; in (-9, 0], rounded to 1e-6. */
  logprob(hash: ContextHash, tokenId: number): number {
    const bits = mix32(hash.h1 ^ Math.imul(tokenId + 1, C3) ^ mix32(hash.h2 + tokenId));
    const u = bits / 4294967296;
    const value = -Math.round(u ** 4 * 9 * 1e6) / 1e6;
    return value === 0 ? 0 : value;
  }
}

/**
 * The logprobs the stand-in engine reports for `outputIds` generated after `inputIds`, for tests.
 *
 * @example
 * computeStandinLogprobs({ seed: 7, inputIds: [1, 2, 3], outputIds: [4, 5] }); // two values ≤ 0
 */
export function computeStandinLogprobs({
  seed,
  weightVersion = "default",
  inputIds,
  outputIds,
}: {
  seed: number;
  weightVersion?: string;
  inputIds: ArrayLike<number>;
  outputIds: ArrayLike<number>;
}): number[] {
  const model = new StandinLogprobs({ seed, weightVersion });
  let hash = model.hashOf(inputIds);
  const logprobs: number[] = [];
  for (let index = 0; index < outputIds.length; index++) {
    const id = outputIds[index]!;
    logprobs.push(model.logprob(hash, id));
    hash = model.extend(hash, id);
  }
  return logprobs;
}
