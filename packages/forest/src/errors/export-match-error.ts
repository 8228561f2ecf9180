import { hasMarker, RelaxError } from "@relax/chat";

const name = "ExportMatchError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Why an export could not be resolved to a committed state:
 * - `no_match`: the record's state (messages, tools, kwargs) is not a committed node;
 * - `no_response`: it names a committed node whose lineage holds no response, so it cannot train;
 * - `leaf_count`: implicit export found zero or several exportable leaves (or a segment — compaction
 *   segment or agent context — with several);
 * - `nonlinear`: the history was not strictly linear: a turn that is not `append` or a tolerated `drift`
 *   and starts no segment (an agent switch counts as one only with agent contexts on).
 *
 * The messages name the fix: explicit export records (docs/contract.md#export-records), and for an agent
 * switch with agent contexts off, the export option that trains them (docs/contract.md#agent-contexts).
 */
export type ExportMatchFailure = "no_match" | "no_response" | "leaf_count" | "nonlinear";

/**
 * An export record (or the implicit export rule) does not name exactly one trainable committed state.
 * Messages name the failure, e.g. `implicit export requires one committed leaf, found 2`. The whole Group
 * is dropped on this error (see docs/contract.md#export-records).
 */
export class ExportMatchError extends RelaxError {
  readonly [symbol] = true;
  readonly reason: ExportMatchFailure;
  readonly sessionId: string;
  /** State hash of the record (for `no_match`, `no_response`). */
  readonly stateHash?: string | undefined;
  /** Number of exportable leaves found (for `leaf_count`, `nonlinear`). */
  readonly leafCount?: number | undefined;
  /** How many leading record messages matched committed history (for `no_match`). */
  readonly matchedMessages?: number | undefined;

  constructor(options: {
    reason: ExportMatchFailure;
    message: string;
    sessionId: string;
    stateHash?: string;
    leafCount?: number;
    matchedMessages?: number;
  }) {
    super({ name, message: options.message });
    this.reason = options.reason;
    this.sessionId = options.sessionId;
    this.stateHash = options.stateHash;
    this.leafCount = options.leafCount;
    this.matchedMessages = options.matchedMessages;
  }

  /** True for any `ExportMatchError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is ExportMatchError {
    return hasMarker(error, marker);
  }
}
