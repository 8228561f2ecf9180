import { hasMarker, RelaxError } from "@relax/chat";

const name = "NoResponseError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A training sample was requested from a node whose lineage holds no committed response: there is
 * nothing to train (see docs/contract.md#sample-construction).
 */
export class NoResponseError extends RelaxError {
  readonly [symbol] = true;
  readonly stateHash: string;
  readonly sessionId: string;

  constructor({ stateHash, sessionId }: { stateHash: string; sessionId: string }) {
    super({
      name,
      message: `state ${stateHash} of session ${sessionId} has no committed response on its lineage`,
    });
    this.stateHash = stateHash;
    this.sessionId = sessionId;
  }

  /** True for any `NoResponseError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is NoResponseError {
    return hasMarker(error, marker);
  }
}
