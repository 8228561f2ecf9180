import { hasMarker } from "./has-marker";
import { SglangError } from "./sglang-error";

const marker = "relax.error.SglangTimeoutError";
const symbol = Symbol.for(marker);

/**
 * A call ran past its time limit. For `/generate` the client has already sent `/abort_request` for the
 * rid (best effort), so the server stops spending tokens on it.
 */
export class SglangTimeoutError extends SglangError {
  readonly [symbol] = true;
  override readonly name: string = "SglangTimeoutError";
  readonly url: string;
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;
  /** The request id, for `/generate`. */
  readonly rid?: string | undefined;

  constructor({
    url,
    timeoutMs,
    rid,
    cause,
  }: { url: string; timeoutMs: number; rid?: string | undefined; cause?: unknown }) {
    super({ message: `${url} did not answer within ${timeoutMs} ms`, cause });
    this.url = url;
    this.timeoutMs = timeoutMs;
    this.rid = rid;
  }

  override get isRetryable(): boolean {
    return true;
  }

  /** True for any `SglangTimeoutError`, from any copy of this package. */
  static override isInstance(error: unknown): error is SglangTimeoutError {
    return hasMarker(error, marker);
  }
}
