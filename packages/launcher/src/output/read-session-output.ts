import { SessionOutputError } from "../errors/session-output-error";
import { parseSessionOutput } from "./parse-session-output";
import type { ParsedSessionOutput } from "./session-output";

/**
 * Reads and parses `RELAX_OUTPUT_JSON` through a sandbox. A missing file is an implicit export.
 *
 * @throws {SessionOutputError} invalid UTF-8, or anything {@link parseSessionOutput} rejects.
 */
export async function readSessionOutput({
  sandbox,
  path,
}: {
  sandbox: { readFile(path: string): Promise<Uint8Array | null> };
  path: string;
}): Promise<ParsedSessionOutput> {
  const bytes = await sandbox.readFile(path);
  if (bytes === null) return { output: { kind: "implicit" }, warnings: [] };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new SessionOutputError({ message: "the output file is not valid UTF-8", cause: error });
  }
  return parseSessionOutput(text);
}
