import { readFileSync } from "node:fs";

/**
 * `argv` joined with the value of each of `flags` replaced by `<redacted>` (both `--flag value` and
 * `--flag=value`), for a process title that hides secrets passed on the command line.
 */
export function redactArgv(argv: readonly string[], flags: readonly string[]): string {
  const out: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    const flag = flags.find((name) => word === name || word.startsWith(`${name}=`));
    if (flag === undefined) out.push(word);
    else if (word === flag) {
      out.push(flag, "<redacted>");
      index++;
    } else out.push(`${flag}=<redacted>`);
  }
  return out.join(" ");
}

/**
 * The warning for a control token given on the command line, after hiding it: the process title (what
 * `/proc/<pid>/cmdline` and `ps` show every local user, agents included) is rewritten with the value
 * redacted. Returns the warning line to print, or `null` when the flag was not on the command line.
 */
export function hideControlTokenArgument(argv: readonly string[] = process.argv): string | null {
  if (!argv.some((word) => word === "--control-token" || word.startsWith("--control-token="))) return null;
  process.title = redactArgv(argv, ["--control-token"]);
  return "relax: WARN --control-token on the command line can be read by every local user (agents included) from /proc/<pid>/cmdline and ps until relax starts (the title is then redacted); pass it as $RELAX_CONTROL_TOKEN or --control-token-file <path> (mode 0600), or let relax generate it into <run-dir>/control-token";
}

/**
 * Reads `--control-token-file`: the token is the file's content, trimmed.
 * @throws {Error} naming the path when the file cannot be read.
 */
export function readControlTokenFile(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (error) {
    throw new Error(`--control-token-file: cannot read ${path}: ${(error as Error).message}`);
  }
}
