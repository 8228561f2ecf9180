import { hasMarker, LauncherError } from "./launcher-error";

const marker = "relax.error.SpawnFailure";
const symbol = Symbol.for(marker);

/** The agent could not be started (the shell failed to exec, or the supervisor failed). */
export class SpawnFailure extends LauncherError {
  protected readonly [symbol] = true;
  /** The `errno` the supervisor reported for a failed exec, or `null` when none is known. */
  readonly errno: number | null;

  constructor({ message, errno = null, cause }: { message: string; errno?: number | null; cause?: unknown }) {
    super({ name: "SpawnFailure", message, cause });
    this.errno = errno;
  }

  /** True for any `SpawnFailure`, whichever copy of the package threw it. */
  static override isInstance(error: unknown): error is SpawnFailure {
    return hasMarker(error, marker);
  }
}
