const marker = Symbol.for("relax.error.SnapshotError");

/**
 * A forest snapshot that cannot be restored: malformed JSON shape, an unknown format version, a parent
 * that does not precede its child, or a stored state hash that does not match its recomputed value.
 */
export class SnapshotError extends Error {
  readonly [marker] = true;
  override readonly name = "SnapshotError";
  /** Field path inside the snapshot, e.g. `nodes[4].stateHash`. */
  readonly path: string;
  readonly reason: string;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super(`snapshot ${path}: ${reason}`, cause === undefined ? undefined : { cause });
    this.path = path;
    this.reason = reason;
  }

  /** True for any `SnapshotError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is SnapshotError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
