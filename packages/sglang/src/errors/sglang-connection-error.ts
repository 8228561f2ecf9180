import { hasMarker } from "./has-marker";
import { SglangError } from "./sglang-error";

const marker = "relax.error.SglangConnectionError";
const symbol = Symbol.for(marker);

/**
 * No HTTP response arrived: connection refused, reset, DNS failure, or a stream cut before its end.
 * `cause` keeps the underlying error (for Node's fetch, `cause.cause.code` is e.g. `ECONNREFUSED`).
 */
export class SglangConnectionError extends SglangError {
  readonly [symbol] = true;
  override readonly name: string = "SglangConnectionError";
  /** The URL that was called. */
  readonly url: string;
  /** The request id, for `/generate`. */
  readonly rid?: string | undefined;

  constructor({
    url,
    rid,
    message,
    cause,
  }: { url: string; rid?: string | undefined; message?: string; cause?: unknown }) {
    super({ message: message ?? `connection to ${url} failed${describeCause(cause)}`, cause });
    this.url = url;
    this.rid = rid;
  }

  override get isRetryable(): boolean {
    return true;
  }

  /** True for any `SglangConnectionError`, from any copy of this package. */
  static override isInstance(error: unknown): error is SglangConnectionError {
    return hasMarker(error, marker);
  }
}

function describeCause(cause: unknown): string {
  let current: unknown = cause;
  for (let depth = 0; depth < 4 && current != null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return ` (${code})`;
    current = (current as { cause?: unknown }).cause;
  }
  return cause instanceof Error ? ` (${cause.message})` : "";
}
