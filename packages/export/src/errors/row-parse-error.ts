import { hasMarker, RelaxError } from "@relax/chat";

const name = "RowParseError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A training-row JSONL line is not valid JSON or does not match the row schema. `line` is 1-based;
 * `path` names the field (e.g. `loss_mask[17]`), or is empty when the line is not JSON at all.
 */
export class RowParseError extends RelaxError {
  readonly [symbol] = true;
  /** 1-based line number in the JSONL text. */
  readonly line: number;
  /** Field path inside the row, `""` for a JSON syntax error. */
  readonly path: string;
  /** The message without the location prefix. */
  readonly reason: string;

  constructor({
    line,
    path,
    reason,
    cause,
  }: { line: number; path: string; reason: string; cause?: unknown }) {
    super({ name, message: `line ${line}${path ? ` ${path}` : ""}: ${reason}`, cause });
    this.line = line;
    this.path = path;
    this.reason = reason;
  }

  /** True for any `RowParseError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is RowParseError {
    return hasMarker(error, marker);
  }
}
