import { hasMarker, RelaxError } from "./relax-error";

const name = "ChatTemplateError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Why a chat template could not be rendered:
 * - `missing_template`: the tokenizer ships no chat template and none was given;
 * - `parse`: the template source is not valid Jinja (for `@huggingface/jinja`);
 * - `raise_exception`: the template called `raise_exception(message)` (HF semantics: the template
 *   rejects the conversation, e.g. "Conversation roles must alternate");
 * - `render`: the template failed while rendering (undefined operation, a non-string value
 *   concatenated into the text, …);
 * - `invalid_input`: the input cannot be handed to the template (a reserved kwarg, tool-call arguments
 *   that are not a JSON object, image parts for a string-content template).
 */
export type ChatTemplateFailure =
  | "missing_template"
  | "parse"
  | "raise_exception"
  | "render"
  | "invalid_input";

/**
 * A chat template could not render a conversation. For `raise_exception` the message is the
 * template's own; `path` names the input field at fault for `invalid_input` (e.g.
 * `messages[2].tool_calls[0].function.arguments`).
 */
export class ChatTemplateError extends RelaxError {
  readonly [symbol] = true;
  /** What failed. */
  readonly reason: ChatTemplateFailure;
  /** The offending input field, when one is at fault. */
  readonly path: string | undefined;

  constructor({
    reason,
    message,
    path,
    cause,
  }: {
    reason: ChatTemplateFailure;
    message: string;
    path?: string;
    cause?: unknown;
  }) {
    super({ name, message: path ? `${path}: ${message}` : message, cause });
    this.reason = reason;
    this.path = path;
  }

  /** True for any `ChatTemplateError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is ChatTemplateError {
    return hasMarker(error, marker);
  }
}
