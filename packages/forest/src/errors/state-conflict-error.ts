const marker = Symbol.for("relax.error.StateConflictError");

/**
 * A commit would give an existing state hash a different node kind (a generated response whose state
 * equals an observation the agent sent earlier). The Python Relax raises "State hash collision" here.
 * Nothing was committed.
 */
export class StateConflictError extends Error {
  readonly [marker] = true;
  override readonly name = "StateConflictError";
  readonly stateHash: string;
  readonly existingKind: string;
  readonly attemptedKind: string;

  constructor(options: { stateHash: string; existingKind: string; attemptedKind: string }) {
    super(
      `state ${options.stateHash} is already committed as ${options.existingKind}; cannot commit it as ${options.attemptedKind}`,
    );
    this.stateHash = options.stateHash;
    this.existingKind = options.existingKind;
    this.attemptedKind = options.attemptedKind;
  }

  /** True for any `StateConflictError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is StateConflictError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
