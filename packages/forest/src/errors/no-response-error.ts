const marker = Symbol.for("relax.error.NoResponseError");

/**
 * A training sample was requested from a node whose lineage holds no committed response: there is
 * nothing to train (the Python Relax raises `ValueError` in `build_sample`).
 */
export class NoResponseError extends Error {
  readonly [marker] = true;
  override readonly name = "NoResponseError";
  readonly stateHash: string;
  readonly sessionId: string;

  constructor({ stateHash, sessionId }: { stateHash: string; sessionId: string }) {
    super(`state ${stateHash} of session ${sessionId} has no committed response on its lineage`);
    this.stateHash = stateHash;
    this.sessionId = sessionId;
  }

  /** True for any `NoResponseError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is NoResponseError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
