import { readErrorExit } from "@relax/chat";

/** How the `relax` CLI ends on an error: what it writes to stderr and its exit code. */
export interface CliErrorReport {
  /** The text for stderr, ending with a newline. */
  text: string;
  exitCode: number;
}

/**
 * The report of an error that ended a `relax` command, by the error contract of `@relax/chat`
 * (`readErrorExit`: the category an error class declares), never by the error's name:
 * - `interrupted` → `relax: <message>`, exit `interruptExitCode` (130 after SIGINT, 143 after SIGTERM);
 * - `config` → `relax: invalid configuration` and the message, exit 2;
 * - `failure` → `relax: <message>` without a stack, exit 1 (with `debug`, the stack as for a bug);
 * - no category (a bug) → `relax: <stack>`, exit 1.
 *
 * @param options.debug - `RELAX_DEBUG` is set: failures print their stack too.
 * @param options.interruptExitCode - the exit code of an interrupted run. @default 130
 */
export function reportCliError(
  error: unknown,
  options: { debug?: boolean; interruptExitCode?: number } = {},
): CliErrorReport {
  const exit = readErrorExit(error);
  const message = error instanceof Error ? error.message : String(error);
  if (exit?.category === "interrupted") {
    return { text: `relax: ${message}\n`, exitCode: options.interruptExitCode ?? exit.exitCode };
  }
  if (exit?.category === "config") {
    return { text: `relax: invalid configuration\n${message}\n`, exitCode: exit.exitCode };
  }
  if (exit?.category === "failure" && !options.debug) {
    return { text: `relax: ${message}\n`, exitCode: exit.exitCode };
  }
  return { text: `relax: ${error instanceof Error ? (error.stack ?? message) : message}\n`, exitCode: 1 };
}
