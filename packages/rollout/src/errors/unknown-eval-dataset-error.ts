import { hasMarker, RelaxError } from "@relax/chat";

const unknownEvalDatasetErrorSymbol = Symbol.for("relax.error.UnknownEvalDatasetError");

/**
 * An eval run named a dataset the runtime does not have (or named one twice); thrown before any eval
 * session starts. A caller's mistake: a control API answers it as a client error.
 */
export class UnknownEvalDatasetError extends RelaxError {
  readonly [unknownEvalDatasetErrorSymbol] = true;
  /** The names asked for that are not eval datasets (or are repeated). */
  readonly names: readonly string[];
  /** The eval datasets there are, in run order. */
  readonly known: readonly string[];

  constructor({ names, known, repeated = false }: { names: string[]; known: string[]; repeated?: boolean }) {
    super({
      name: "UnknownEvalDatasetError",
      message: repeated
        ? `eval dataset(s) named more than once: ${names.join(", ")}`
        : `unknown eval dataset(s) ${names.map((name) => `"${name}"`).join(", ")}; known: ${known.length > 0 ? known.join(", ") : "none (no --eval-prompt-data)"}`,
    });
    this.names = names;
    this.known = known;
  }

  /** True for any `UnknownEvalDatasetError`, from any copy of this package. */
  static override isInstance(error: unknown): error is UnknownEvalDatasetError {
    return hasMarker(error, "relax.error.UnknownEvalDatasetError");
  }
}
