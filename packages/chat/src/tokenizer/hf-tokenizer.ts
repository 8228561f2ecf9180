import { Tokenizer } from "@huggingface/tokenizers";
import { createPreTokenCacheEncoder, type PreTokenCacheEncoder } from "./pre-token-cache-encoder";
import { collectStopTokenIds } from "./stop-token-ids";
import type { TextTokenizer } from "./text-tokenizer";
import { specialTokenContent, type TokenizerConfig, type TokenizerJson } from "./tokenizer-files";

/** Options of {@link HfTokenizer.decode}. */
export interface HfDecodeOptions {
  /** Drop special tokens (`special: true` added tokens) from the text. @default false */
  skipSpecialTokens?: boolean;
  /**
   * Apply WordPiece-era space clean-up (`" ."` → `"."`). Defaults to what transformers 5 does: the
   * config's `clean_up_tokenization_spaces`, ignored for BPE models (it would corrupt their output)
   * unless `clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output` is set.
   */
  cleanUpTokenizationSpaces?: boolean;
}

/** What {@link HfTokenizer} is built from: the parsed files of a Hugging Face tokenizer directory. */
export interface HfTokenizerInit {
  /** Parsed `tokenizer.json`. */
  tokenizerJson: TokenizerJson;
  /** Parsed `tokenizer_config.json`. */
  tokenizerConfig: TokenizerConfig;
  /**
   * The chat template: a string, or named templates (`{ default, tool_use }`). Defaults to the
   * config's `chat_template`.
   */
  chatTemplate?: string | Readonly<Record<string, string>> | undefined;
  /** `eos_token_id`(s) from `generation_config.json`; they join {@link HfTokenizer.stopTokenIds}. */
  generationEosTokenIds?: readonly number[];
  /** Where the files came from (a directory), for messages. */
  source?: string | undefined;
  /**
   * Encode through the pre-token cache ({@link PreTokenCacheEncoder}, the same ids, ≈ 10–40× faster on
   * agent contexts) when the tokenizer's shape allows; `false` always uses the library's `encode`.
   * @default true
   */
  preTokenCache?: boolean;
}

/**
 * A Hugging Face tokenizer (through `@huggingface/tokenizers`) implementing {@link TextTokenizer}, with
 * the special tokens and chat template(s) of its `tokenizer_config.json`. `encode` never adds special
 * tokens (as `apply_chat_template(tokenize=True)` does: the template emits BOS itself); `decode` keeps
 * special tokens unless asked. Ids match Hugging Face `tokenizers` (cross-checked on Qwen3, Llama 3,
 * DeepSeek V3 and gpt-oss files). Byte-level BPE tokenizers of the Qwen / Llama 3 / DeepSeek V3 /
 * gpt-oss shape encode through a {@link PreTokenCacheEncoder} (the library's own pieces, each
 * pre-token's ids cached); {@link HfTokenizer.preTokenCache} says whether this one does.
 */
export class HfTokenizer implements TextTokenizer {
  /** The parsed `tokenizer_config.json` (all keys kept). */
  readonly config: TokenizerConfig;
  /** The default chat template (the `default` one when the config names several), if any. */
  readonly chatTemplate: string | undefined;
  /** All chat templates by name (`default`, `tool_use`, …); a single template is named `default`. */
  readonly chatTemplates: Readonly<Record<string, string>>;
  /** The BOS token text, if configured (`null` in the config gives `undefined`). */
  readonly bosToken: string | undefined;
  /** The EOS token text, if configured. */
  readonly eosToken: string | undefined;
  /** The padding token text, if configured. */
  readonly padToken: string | undefined;
  /** The unknown token text, if configured. */
  readonly unkToken: string | undefined;
  /** Ids of special added tokens (`special: true` in `tokenizer.json`). */
  readonly specialTokenIds: ReadonlySet<number>;
  /** Ids of all added tokens, special or not (Qwen `<think>` is added but not special). */
  readonly addedTokenIds: ReadonlySet<number>;
  /** Ids that end generation: EOS, `generation_config` EOS ids, then known turn-end tokens. */
  readonly stopTokenIds: readonly number[];
  /** Where the tokenizer was loaded from, when known. */
  readonly source: string | undefined;

  /** Whether `encode` goes through the pre-token cache (else through the library's `encode`). */
  readonly preTokenCache: boolean;

  private readonly tokenizer: Tokenizer;
  private readonly fastEncoder: PreTokenCacheEncoder | undefined;
  private readonly cleanUpByDefault: boolean;
  private vocabSizeCache: number | undefined;

  /** @throws Error from `@huggingface/tokenizers` when `tokenizerJson` is not a usable tokenizer. */
  constructor({
    tokenizerJson,
    tokenizerConfig,
    chatTemplate,
    generationEosTokenIds = [],
    source,
    preTokenCache = true,
  }: HfTokenizerInit) {
    this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    this.fastEncoder = preTokenCache ? createPreTokenCacheEncoder(this.tokenizer, tokenizerJson) : undefined;
    this.preTokenCache = this.fastEncoder !== undefined;
    this.config = tokenizerConfig;
    this.source = source;
    this.chatTemplates = resolveChatTemplates(chatTemplate ?? tokenizerConfig.chat_template ?? undefined);
    this.chatTemplate = this.chatTemplates.default;
    this.bosToken = specialTokenContent(tokenizerConfig.bos_token);
    this.eosToken = specialTokenContent(tokenizerConfig.eos_token);
    this.padToken = specialTokenContent(tokenizerConfig.pad_token);
    this.unkToken = specialTokenContent(tokenizerConfig.unk_token);

    const special = new Set<number>();
    const added = new Set<number>();
    for (const [id, token] of this.tokenizer.get_added_tokens_decoder()) {
      added.add(id);
      if (token.special) special.add(id);
    }
    this.specialTokenIds = special;
    this.addedTokenIds = added;
    this.stopTokenIds = collectStopTokenIds({
      eosTokenId: this.eosToken === undefined ? undefined : this.tokenToId(this.eosToken),
      generationEosIds: generationEosTokenIds,
      specialTokenIds: special,
      tokenToId: (token) => this.tokenToId(token),
    });
    const isBpe = tokenizerJson.model.type === "BPE";
    this.cleanUpByDefault =
      (tokenizerConfig.clean_up_tokenization_spaces ?? false) &&
      (!isBpe ||
        (tokenizerConfig.clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output ?? false));
  }

  /** Token ids of `text`; no special tokens are added (BOS/EOS only appear if `text` spells them). */
  encode(text: string): number[] {
    if (text === "") return [];
    if (this.fastEncoder !== undefined) return this.fastEncoder.encode(text);
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /**
   * `encode(text)` when it stays cheap, else `undefined`: through the pre-token cache, at most
   * `missedChars` characters of uncached pre-tokens go through the library's BPE
   * ({@link PreTokenCacheEncoder.encodeWithin}). Without the pre-token cache, always `undefined`.
   */
  encodeWithin(text: string, missedChars: number): number[] | undefined {
    if (text === "") return [];
    return this.fastEncoder?.encodeWithin(text, missedChars);
  }

  /** Text of `ids`; special tokens are kept unless `skipSpecialTokens`. Empty input gives `""`. */
  decode(ids: ArrayLike<number>, options: HfDecodeOptions = {}): string {
    if (ids.length === 0) return "";
    return this.tokenizer.decode(Array.from(ids), {
      skip_special_tokens: options.skipSpecialTokens ?? false,
      clean_up_tokenization_spaces: options.cleanUpTokenizationSpaces ?? this.cleanUpByDefault,
    });
  }

  /** The id of a token string (vocabulary or added token), or `undefined`. */
  tokenToId(token: string): number | undefined {
    return this.tokenizer.token_to_id(token);
  }

  /** The token string of an id, or `undefined`. */
  idToToken(id: number): string | undefined {
    return this.tokenizer.id_to_token(id);
  }

  /** Vocabulary size including added tokens (`len(tokenizer)` in transformers). */
  get vocabSize(): number {
    this.vocabSizeCache ??= this.tokenizer.get_vocab(true).size;
    return this.vocabSizeCache;
  }

  /**
   * The special-token variables Hugging Face hands to chat templates (`special_tokens_map`): `bos_token`,
   * `eos_token`, `pad_token`, `unk_token`, each only when configured.
   */
  get templateSpecialTokens(): Record<string, string> {
    const tokens: Record<string, string> = {};
    if (this.bosToken !== undefined) tokens.bos_token = this.bosToken;
    if (this.eosToken !== undefined) tokens.eos_token = this.eosToken;
    if (this.unkToken !== undefined) tokens.unk_token = this.unkToken;
    if (this.padToken !== undefined) tokens.pad_token = this.padToken;
    return tokens;
  }
}

function resolveChatTemplates(
  template:
    | string
    | Readonly<Record<string, string>>
    | ReadonlyArray<{ name: string; template: string }>
    | undefined,
): Readonly<Record<string, string>> {
  if (template === undefined) return {};
  if (typeof template === "string") return { default: template };
  if (Array.isArray(template)) {
    return Object.fromEntries(template.map((entry) => [entry.name, entry.template]));
  }
  return { ...(template as Readonly<Record<string, string>>) };
}
