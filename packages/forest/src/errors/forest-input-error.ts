import { RelaxError } from "@relax/chat";

const name = "ForestInputError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Invalid input to a `SessionForest` call: `path` names the field (`outputIds[3]`, `logprobs`,
 * `state.messages`, `plan`), `reason` says what is wrong. Nothing was committed by the call that threw it.
 */
export class ForestInputError extends RelaxError {
  readonly [symbol] = true;
  /** Field path of the offending value. */
  readonly path: string;
  /** The message without the path prefix. */
  readonly reason: string;

  constructor({ path, reason }: { path: string; reason: string }) {
    super({ name, message: `${path}: ${reason}` });
    this.path = path;
    this.reason = reason;
  }

  /** True for any `ForestInputError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is ForestInputError {
    return RelaxError.hasMarker(error, marker);
  }
}
