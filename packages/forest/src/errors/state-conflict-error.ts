import { hasMarker, RelaxError } from "@relax/chat";

const name = "StateConflictError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A commit would give an existing state hash a different node kind (a generated response whose state
 * equals an observation the agent sent earlier). Nothing was committed (see docs/contract.md#sessionforest).
 */
export class StateConflictError extends RelaxError {
  readonly [symbol] = true;
  readonly stateHash: string;
  readonly existingKind: string;
  readonly attemptedKind: string;

  constructor(options: { stateHash: string; existingKind: string; attemptedKind: string }) {
    super({
      name,
      message: `state ${options.stateHash} is already committed as ${options.existingKind}; cannot commit it as ${options.attemptedKind}`,
    });
    this.stateHash = options.stateHash;
    this.existingKind = options.existingKind;
    this.attemptedKind = options.attemptedKind;
  }

  /** True for any `StateConflictError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is StateConflictError {
    return hasMarker(error, marker);
  }
}
