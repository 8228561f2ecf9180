import type { TextTokenizer } from "../tokenizer/text-tokenizer";

/**
 * How a chat template closes an assistant turn, learned by rendering `dummy ++ [assistant PROBE]`
 * without a generation prompt and reading what follows the probe content.
 */
export interface TurnClose {
  /** Everything the template writes after an assistant turn's content (Qwen: `"<|im_end|>\n"`). */
  text: string;
  /** The part the model generates itself, `text` without trailing newlines (Qwen: `"<|im_end|>"`). */
  turnEndText: string;
  /** Token ids of `turnEndText` (Qwen: `[151645]`); prepended to a delta after a response cut short. */
  turnEndIds: number[];
  /** The newlines after the turn end the model never generates (Qwen: `"\n"`); the delta starts with them. */
  trailingText: string;
}

/** The assistant content used to find the turn close in a render. */
export const TURN_CLOSE_PROBE = "RELAX_TURN_CLOSE_PROBE";

/** Splits a turn-close text into what the model generates and the trailing newlines it does not. */
export function splitTurnClose(text: string, tokenizer: TextTokenizer): TurnClose {
  const turnEndText = text.replace(/\n+$/, "");
  return {
    text,
    turnEndText,
    turnEndIds: tokenizer.encode(turnEndText),
    trailingText: text.slice(turnEndText.length),
  };
}
