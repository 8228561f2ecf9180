import { hasMarker } from "./has-marker";
import { SglangApiError } from "./sglang-api-error";

const marker = "relax.error.SglangServerError";
const symbol = Symbol.for(marker);

/**
 * SGLang or the router answered 5xx: an internal error, an abort the scheduler created with a 500/503
 * status (out of memory, running timeout), a router with no healthy worker, or a server that is starting
 * or shutting down. Retryable for 500/502/503/504, but `/generate` is still never retried automatically,
 * because it may have run.
 */
export class SglangServerError extends SglangApiError {
  readonly [symbol] = true;
  override readonly name: string = "SglangServerError";

  override get isRetryable(): boolean {
    return this.status === 500 || this.status === 502 || this.status === 503 || this.status === 504;
  }

  /** True for any `SglangServerError`, from any copy of this package. */
  static override isInstance(error: unknown): error is SglangServerError {
    return hasMarker(error, marker);
  }
}
