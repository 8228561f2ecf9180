import { hasMarker, LauncherError } from "./launcher-error";

const marker = "relax.error.ReaperUnavailableError";
const symbol = Symbol.for(marker);

/**
 * The `relax-reaper` supervisor binary is neither built (`dist/relax-reaper`) nor buildable (no C compiler,
 * or compilation failed), and unsupervised launching was not allowed. `details` holds the compiler output
 * or the reason the binary could not be located.
 */
export class ReaperUnavailableError extends LauncherError {
  protected readonly [symbol] = true;
  /** Why no binary is available (compiler stderr, missing source path...). */
  readonly details: string;

  constructor({ details, cause }: { details: string; cause?: unknown }) {
    super({
      name: "ReaperUnavailableError",
      message:
        "relax-reaper is unavailable: install a C compiler (cc) and rebuild @relax/launcher, pass " +
        `reaperPath, or opt into supervision: "process-group" (${details})`,
      cause,
    });
    this.details = details;
  }

  static override isInstance(error: unknown): error is ReaperUnavailableError {
    return hasMarker(error, marker);
  }
}
