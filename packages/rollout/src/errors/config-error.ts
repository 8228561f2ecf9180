import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

const configErrorSymbol = Symbol.for("relax.error.ConfigError");

/** A configuration that cannot run; the message names the flag or key. */
export class ConfigError extends RelaxError {
  readonly [configErrorSymbol] = true;
  /** Ends a command line with exit 2 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "config" as const;

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super({ name: "ConfigError", message, cause });
  }

  /** True for any `ConfigError`, from any copy of this package. */
  static override isInstance(error: unknown): error is ConfigError {
    return hasMarker(error, "relax.error.ConfigError");
  }
}
