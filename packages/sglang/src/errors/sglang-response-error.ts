import { hasMarker } from "./has-marker";
import { SglangError } from "./sglang-error";

const marker = "relax.error.SglangResponseError";
const symbol = Symbol.for(marker);

/**
 * SGLang answered 2xx with a body that cannot be trusted for training: not JSON, a field of the wrong
 * type, logprobs whose count or token ids disagree with `output_ids`, an unknown finish reason. `path`
 * names the offending field (e.g. `meta_info.output_token_logprobs[3][1]`).
 */
export class SglangResponseError extends SglangError {
  readonly [symbol] = true;
  override readonly name: string = "SglangResponseError";
  readonly url: string;
  /** Field path inside the response body. */
  readonly path: string;
  /** The problem, without the path. */
  readonly reason: string;
  readonly rid?: string | undefined;

  constructor({
    url,
    path,
    reason,
    rid,
    cause,
  }: {
    url: string;
    path: string;
    reason: string;
    rid?: string | undefined;
    cause?: unknown;
  }) {
    super({ message: `untrusted response from ${url}: ${path}: ${reason}`, cause });
    this.url = url;
    this.path = path;
    this.reason = reason;
    this.rid = rid;
  }

  /** True for any `SglangResponseError`, from any copy of this package. */
  static override isInstance(error: unknown): error is SglangResponseError {
    return hasMarker(error, marker);
  }
}
