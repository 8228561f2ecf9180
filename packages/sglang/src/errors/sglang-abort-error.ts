import { hasMarker } from "./has-marker";
import { SglangError } from "./sglang-error";

const marker = "relax.error.SglangAbortError";
const symbol = Symbol.for(marker);

/**
 * The caller's `AbortSignal` fired and no partial output can be returned: either the signal was already
 * aborted before anything was sent, or the server did not answer the aborted request within the grace
 * period. (Normally an aborted `generate` *returns* the partial output with `finishReason.type ===
 * "abort"`; this error is the exception.)
 */
export class SglangAbortError extends SglangError {
  readonly [symbol] = true;
  override readonly name: string = "SglangAbortError";
  readonly url?: string | undefined;
  readonly rid?: string | undefined;
  /** Whether the request reached the server (it may have generated tokens that are now lost). */
  readonly sent: boolean;

  constructor({
    url,
    rid,
    sent,
    message,
    cause,
  }: {
    url?: string | undefined;
    rid?: string | undefined;
    sent: boolean;
    message?: string;
    cause?: unknown;
  }) {
    super({
      message:
        message ??
        (sent
          ? `request ${rid ?? ""} was aborted and the server returned no partial output`
          : `request ${rid ?? ""} was aborted before it was sent`),
      cause,
    });
    this.url = url;
    this.rid = rid;
    this.sent = sent;
  }

  /** True for any `SglangAbortError`, from any copy of this package. */
  static override isInstance(error: unknown): error is SglangAbortError {
    return hasMarker(error, marker);
  }
}
