import { FieldError, hasMarker } from "@relax/chat";

const name = "ForestInputError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Invalid input to a `SessionForest` call: `path` names the field (`outputIds[3]`, `logprobs`,
 * `state.messages`, `plan`), `reason` says what is wrong. Nothing was committed by the call that threw it.
 * Paths under `state.` (and `maxNewTokens`) come from the agent's request; the others from the caller.
 */
export class ForestInputError extends FieldError {
  readonly [symbol] = true;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super({ name, path, reason, cause });
  }

  /** True for any `ForestInputError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is ForestInputError {
    return hasMarker(error, marker);
  }
}
