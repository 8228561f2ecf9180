import { hasMarker, LauncherError } from "./launcher-error";

const marker = "relax.error.SessionInputError";
const symbol = Symbol.for(marker);

/**
 * The session input could not be built: a prompt that is neither a string nor a message list, an
 * `<image>` placeholder count that does not match the images, an unreadable image file, or bytes that are
 * not a known image format. `path` names the field, e.g. `images[1]` or `prompt[0].content`.
 */
export class SessionInputError extends LauncherError {
  protected readonly [symbol] = true;
  /** Field path of the offending value. */
  readonly path: string;

  constructor({ path, message, cause }: { path: string; message: string; cause?: unknown }) {
    super({ name: "SessionInputError", message: `${path}: ${message}`, cause });
    this.path = path;
  }

  static override isInstance(error: unknown): error is SessionInputError {
    return hasMarker(error, marker);
  }
}
