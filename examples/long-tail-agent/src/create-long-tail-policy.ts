import { seededUniforms } from "./draw-long-tail";

/**
 * The part of the stand-in engine's policy request this policy reads (structural, so the example does
 * not depend on the engine package).
 */
export interface LongTailPolicyRequest {
  inputIds: readonly number[];
  tokenizer: { encode(text: string): number[] };
}

/** Options of {@link createLongTailPolicy}. */
export interface LongTailPolicyOptions {
  /** Median reply length in words. @default 12 */
  wordMedian?: number;
  /** σ of ln(reply words). @default 0.5 */
  wordSigma?: number;
}

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];

/**
 * The long-tail example's **stand-in policy** (a script, not a model): the reply is a lognormal number of
 * words seeded by the prompt before the assistant header, so the same prompt gets the same reply. When
 * the prompt already ends inside the assistant turn (a partial-rollout continuation: lineage ++ partial
 * ids) it emits only the rest of that reply, so a continued turn yields exactly the ids of an
 * uninterrupted one.
 */
export function createLongTailPolicy(options: LongTailPolicyOptions = {}) {
  const wordMedian = options.wordMedian ?? 12;
  const wordSigma = options.wordSigma ?? 0.5;
  let header: number[] | undefined;
  return (request: LongTailPolicyRequest): { tokenIds: number[] } => {
    header ??= request.tokenizer.encode("<|im_start|>assistant\n");
    const ids = request.inputIds;
    let at = -1;
    for (let i = ids.length - header.length; i >= 0; i--) {
      if (header.every((id, j) => ids[i + j] === id)) {
        at = i;
        break;
      }
    }
    const prefix = at < 0 ? ids : ids.slice(0, at);
    const next = seededUniforms(`reply|${prefix.length}|${prefix.slice(-16).join(",")}`);
    const z = Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
    const count = Math.max(1, Math.round(wordMedian * Math.exp(wordSigma * z)));
    const words = Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    const reply = request.tokenizer.encode(`Working: ${words.join(" ")}.`);
    const partial = at < 0 ? [] : ids.slice(at + header.length);
    const continues = partial.length > 0 && partial.every((id, i) => reply[i] === id);
    return { tokenIds: continues ? reply.slice(partial.length) : reply };
  };
}

/** The default long-tail policy. */
export const longTailPolicy = createLongTailPolicy();
