import { hasMarker, RelaxError } from "@relax/chat";

const name = "UnknownStateError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/** A state hash that is not a committed node of the session forest. */
export class UnknownStateError extends RelaxError {
  readonly [symbol] = true;
  readonly stateHash: string;
  readonly sessionId: string;

  constructor({ stateHash, sessionId }: { stateHash: string; sessionId: string }) {
    super({ name, message: `state ${stateHash} is not committed in session ${sessionId}` });
    this.stateHash = stateHash;
    this.sessionId = sessionId;
  }

  /** True for any `UnknownStateError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is UnknownStateError {
    return hasMarker(error, marker);
  }
}
