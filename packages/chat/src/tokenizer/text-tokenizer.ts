/**
 * The tokenizer surface every Relax package relies on. Implemented by `loadTokenizer` (a Hugging Face
 * directory through `@huggingface/tokenizers`); tests may implement it with a character tokenizer.
 */
export interface TextTokenizer {
  /** Encode text to ids without adding special tokens (no BOS/EOS is ever added). */
  encode(text: string): number[];
  /**
   * Optional: `encode(text)` when it can be done cheaply (a bounded amount of uncached work), else
   * `undefined`; see `HfTokenizer.encodeWithin`. Callers fall back to `encode` elsewhere (a worker).
   */
  encodeWithin?(text: string, missedChars: number): number[] | undefined;
  /** Decode ids to text. `skipSpecialTokens` defaults to `false` (markers such as `<|im_end|>` kept). */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): string;
  /** The id of a token string, or `undefined`. */
  tokenToId(token: string): number | undefined;
  /** The token string of an id, or `undefined`. */
  idToToken(id: number): string | undefined;
  /** Ids of special (added, `special: true`) tokens. */
  readonly specialTokenIds: ReadonlySet<number>;
  /** Ids that end generation (EOS and template turn-end tokens, e.g. Qwen `<|im_end|>`, `<|endoftext|>`). */
  readonly stopTokenIds: readonly number[];
  /** Vocabulary size including added tokens. */
  readonly vocabSize: number;
}
