/**
 * How a command line ends on an error whose message is complete (no stack trace wanted):
 * - `config`: the run's configuration is wrong (a flag, a key, a file it names): exit 2;
 * - `failure`: an expected failure of the run (an unreadable dataset, the engine down, a run that
 *   stalled): exit 1;
 * - `interrupted`: the run was stopped by a signal: exit 130 (128 + SIGINT; a CLI that saw SIGTERM
 *   exits 143).
 *
 * An error without a category is a bug: a CLI prints its stack and exits 1.
 */
export type ErrorExitCategory = "config" | "failure" | "interrupted";

/** The exit code of each {@link ErrorExitCategory}. */
export const ERROR_EXIT_CODES: Readonly<Record<ErrorExitCategory, number>> = {
  config: 2,
  failure: 1,
  interrupted: 130,
};

/**
 * The property key of an error's exit category: `readonly [ERROR_EXIT] = "config" as const` on the
 * class. A global symbol (`Symbol.for("relax.error.exit")`), like the error markers, so an error from
 * another copy of a package, or from a package that does not import `@relax/chat`, is read the same way.
 */
export const ERROR_EXIT: unique symbol = Symbol.for("relax.error.exit") as typeof ERROR_EXIT;

/**
 * The exit category and code an error declares, or `undefined` when it declares none (or a value that
 * is not a category: a forged or foreign object is not trusted).
 *
 * @example
 * ```ts
 * readErrorExit(new ConfigError({ message: "--foo: unknown" })); // { category: "config", exitCode: 2 }
 * ```
 */
export function readErrorExit(error: unknown): { category: ErrorExitCategory; exitCode: number } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const category = (error as { [ERROR_EXIT]?: unknown })[ERROR_EXIT];
  if (typeof category !== "string" || !Object.hasOwn(ERROR_EXIT_CODES, category)) return undefined;
  return {
    category: category as ErrorExitCategory,
    exitCode: ERROR_EXIT_CODES[category as ErrorExitCategory],
  };
}
