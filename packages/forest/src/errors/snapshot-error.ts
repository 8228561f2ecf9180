import { hasMarker, RelaxError } from "@relax/chat";

const name = "SnapshotError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A forest snapshot that cannot be restored: malformed JSON shape, an unknown format version, a parent
 * that does not precede its child, or a stored state hash that does not match its recomputed value.
 */
export class SnapshotError extends RelaxError {
  readonly [symbol] = true;
  /** Field path inside the snapshot, e.g. `nodes[4].stateHash`. */
  readonly path: string;
  readonly reason: string;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super({ name, message: `snapshot ${path}: ${reason}`, cause });
    this.path = path;
    this.reason = reason;
  }

  /** True for any `SnapshotError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is SnapshotError {
    return hasMarker(error, marker);
  }
}
