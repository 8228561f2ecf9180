import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

const datasetErrorSymbol = Symbol.for("relax.error.DatasetError");

/** A dataset line that could not be used; the message reads `file:line: reason`. */
export class DatasetError extends RelaxError {
  readonly [datasetErrorSymbol] = true;
  /** Ends a command line with exit 1 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "failure" as const;
  /** The dataset file. */
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
  /** What is wrong with the line. */
  readonly reason: string;

  constructor({
    file,
    line,
    reason,
    cause,
  }: { file: string; line: number; reason: string; cause?: unknown }) {
    super({ name: "DatasetError", message: `${file}:${line}: ${reason}`, cause });
    this.file = file;
    this.line = line;
    this.reason = reason;
  }

  /** True for any `DatasetError`, from any copy of this package. */
  static override isInstance(error: unknown): error is DatasetError {
    return hasMarker(error, "relax.error.DatasetError");
  }
}
