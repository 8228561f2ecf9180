import { ERROR_EXIT } from "./error-exit";
import { hasMarker, RelaxError } from "./relax-error";

const name = "TokenizerLoadError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Why a tokenizer could not be loaded:
 * - `not_found`: the file (or the directory / npm package named by the source) does not exist;
 * - `unreadable`: the file exists but could not be read;
 * - `malformed_json`: the file is not valid JSON;
 * - `invalid`: the JSON parsed but is not a usable tokenizer, config or template (wrong shape, or
 *   `@huggingface/tokenizers` rejected it).
 */
export type TokenizerLoadFailure = "not_found" | "unreadable" | "malformed_json" | "invalid";

/**
 * A tokenizer source could not be loaded. `file` names the offending file (`…/tokenizer.json`,
 * `…/tokenizer_config.json`, `…/chat_template.jinja`, `…/generation_config.json`) or the source string
 * when nothing could be resolved.
 */
export class TokenizerLoadError extends RelaxError {
  readonly [symbol] = true;
  /** Ends a command line with exit 1 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "failure" as const;
  /** The file (absolute path when resolved) or the unresolved source. */
  readonly file: string;
  /** What went wrong with it. */
  readonly reason: TokenizerLoadFailure;

  constructor({
    file,
    reason,
    detail,
    cause,
  }: {
    file: string;
    reason: TokenizerLoadFailure;
    /** Extra explanation appended to the message. */
    detail?: string | undefined;
    cause?: unknown;
  }) {
    super({ name, message: `${file}: ${describe(reason)}${detail ? ` (${detail})` : ""}`, cause });
    this.file = file;
    this.reason = reason;
  }

  /** True for any `TokenizerLoadError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is TokenizerLoadError {
    return hasMarker(error, marker);
  }
}

function describe(reason: TokenizerLoadFailure): string {
  switch (reason) {
    case "not_found":
      return "not found";
    case "unreadable":
      return "could not be read";
    case "malformed_json":
      return "is not valid JSON";
    case "invalid":
      return "is not a valid tokenizer file";
    default: {
      const never: never = reason;
      return String(never);
    }
  }
}
