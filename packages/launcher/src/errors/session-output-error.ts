import { hasMarker, LauncherError } from "./launcher-error";

const marker = "relax.error.SessionOutputError";
const symbol = Symbol.for(marker);

/**
 * `RELAX_OUTPUT_JSON` holds something the contract does not allow: malformed JSON(L), a JSON array, a
 * record with a missing/empty/duplicate `name`, or a field of the wrong type. `line` is the 1-based line
 * of the offending JSONL record (1 for a single JSON object) and `path` the field inside it
 * (e.g. `messages`, `reward`); both are `null` when the whole file is at fault.
 */
export class SessionOutputError extends LauncherError {
  protected readonly [symbol] = true;
  /** 1-based line number of the bad record, or `null` for a whole-file problem. */
  readonly line: number | null;
  /** Field path inside the record (`"name"`, `"metadata.score"`), or `null`. */
  readonly path: string | null;

  constructor({
    line = null,
    path = null,
    message,
    cause,
  }: { line?: number | null; path?: string | null; message: string; cause?: unknown }) {
    const where = [line != null ? `line ${line}` : null, path != null ? `field ${path}` : null]
      .filter((part) => part !== null)
      .join(", ");
    super({
      name: "SessionOutputError",
      message: where ? `invalid session output (${where}): ${message}` : `invalid session output: ${message}`,
      cause,
    });
    this.line = line;
    this.path = path;
  }

  static override isInstance(error: unknown): error is SessionOutputError {
    return hasMarker(error, marker);
  }
}
