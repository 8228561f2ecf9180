import { hasMarker } from "./has-marker";
import { SglangError } from "./sglang-error";

const marker = "relax.error.SglangInvalidArgumentError";
const symbol = Symbol.for(marker);

/**
 * The caller passed a bad value (nothing was sent). `field` names it in the caller's terms, e.g.
 * `inputIds[12]`, `sampling.maxNewTokens`, `rid`.
 */
export class SglangInvalidArgumentError extends SglangError {
  readonly [symbol] = true;
  override readonly name: string = "SglangInvalidArgumentError";
  readonly field: string;
  readonly reason: string;

  constructor({ field, reason }: { field: string; reason: string }) {
    super({ message: `${field}: ${reason}` });
    this.field = field;
    this.reason = reason;
  }

  /** True for any `SglangInvalidArgumentError`, from any copy of this package. */
  static override isInstance(error: unknown): error is SglangInvalidArgumentError {
    return hasMarker(error, marker);
  }
}
