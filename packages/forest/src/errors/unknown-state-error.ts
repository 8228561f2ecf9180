const marker = Symbol.for("relax.error.UnknownStateError");

/** A state hash that is not a committed node of the session forest. */
export class UnknownStateError extends Error {
  readonly [marker] = true;
  override readonly name = "UnknownStateError";
  readonly stateHash: string;
  readonly sessionId: string;

  constructor({ stateHash, sessionId }: { stateHash: string; sessionId: string }) {
    super(`state ${stateHash} is not committed in session ${sessionId}`);
    this.stateHash = stateHash;
    this.sessionId = sessionId;
  }

  /** True for any `UnknownStateError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is UnknownStateError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
