import { createReadStream } from "node:fs";
import { appendFile, mkdir, open, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { formatFieldPath } from "@relax/chat";
import { RowParseError } from "../errors/row-parse-error";
import { type TrainingRow, trainingRowSchema } from "./training-row";

/**
 * Serialises rows as JSONL: one compact JSON object per line, each line ending in `\n`, UTF-8.
 * Numbers use JavaScript's shortest round-trip form, so Python's `json.loads` reads back the same
 * float64 values.
 */
export function formatTrainingRowsJsonl(rows: Iterable<TrainingRow>): string {
  let text = "";
  for (const row of rows) text += `${serializeTrainingRow(row)}\n`;
  return text;
}

/**
 * One row as compact JSON, byte-identical to `JSON.stringify(row)`. The broadcast `advantages` array
 * (only `0` and `advantage`) is written from two cached number strings, which saves the per-element
 * float formatting that dominates serialisation.
 */
export function serializeTrainingRow(row: TrainingRow): string {
  let text = "{";
  for (const key of Object.keys(row)) {
    const value = (row as Record<string, unknown>)[key];
    if (value === undefined || typeof value === "function") continue;
    const json = key === "advantages" ? serializeAdvantages(row) : JSON.stringify(value);
    text += `${text === "{" ? "" : ","}${JSON.stringify(key)}:${json}`;
  }
  return `${text}}`;
}

function serializeAdvantages(row: TrainingRow): string {
  const { advantages, advantage } = row;
  if (!Number.isFinite(advantage)) return JSON.stringify(advantages);
  const credit = JSON.stringify(advantage);
  const parts = new Array<string>(advantages.length);
  for (let i = 0; i < advantages.length; i++) {
    const value = advantages[i];
    // JSON.stringify writes -0 as "0", so `=== 0` covers both zeros.
    if (value === 0) parts[i] = "0";
    else if (value === advantage) parts[i] = credit;
    else return JSON.stringify(advantages);
  }
  return `[${parts.join(",")}]`;
}

/** Options of {@link parseTrainingRowsJsonl}. */
export interface ParseTrainingRowsOptions {
  /** Validate each row against {@link trainingRowSchema} (shape and invariants). @default true */
  validate?: boolean;
  /** Line number of the first line, for messages when parsing a slice. @default 1 */
  firstLine?: number;
}

/**
 * Parses JSONL rows. Blank lines (including the one after the final `\n`) are skipped.
 * @throws RowParseError with the 1-based line and the field path of the first problem.
 */
export function parseTrainingRowsJsonl(text: string, options: ParseTrainingRowsOptions = {}): TrainingRow[] {
  const { validate = true, firstLine = 1 } = options;
  const rows: TrainingRow[] = [];
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    const row = parseTrainingRowLine({ line, lineNumber: firstLine + i, validate });
    if (row !== undefined) rows.push(row);
  }
  return rows;
}

/**
 * Parses one JSONL line; `undefined` for a blank line.
 * @throws RowParseError
 */
export function parseTrainingRowLine({
  line,
  lineNumber,
  validate = true,
}: {
  line: string;
  lineNumber: number;
  validate?: boolean;
}): TrainingRow | undefined {
  if (line.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new RowParseError({ line: lineNumber, path: "", reason: (error as Error).message, cause: error });
  }
  if (!validate) return value as TrainingRow;
  const parsed = trainingRowSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new RowParseError({
    line: lineNumber,
    path: formatFieldPath(issue.path),
    reason: issue.message,
    cause: parsed.error,
  });
}

/** Writes (or appends) rows as JSONL, creating parent directories. */
export async function writeTrainingRowsFile({
  path,
  rows,
  append = false,
}: {
  path: string;
  rows: Iterable<TrainingRow>;
  append?: boolean;
}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const text = formatTrainingRowsJsonl(rows);
  if (append) await appendFile(path, text, "utf8");
  else await writeFile(path, text, "utf8");
}

/** A torn last line that {@link readTrainingRowsFile} skipped. */
export interface TornRowLine {
  /** 1-based line number. */
  line: number;
  /** Length of the torn line in UTF-16 code units (as read). */
  length: number;
  /** Why it did not parse. */
  reason: string;
}

/**
 * Streams rows from a JSONL file, line by line (memory bounded by the longest line). A torn last line — the
 * file does not end in a newline and its last line is not valid JSON (a crash during an append) — is
 * skipped and reported to `onTornLine` (without it, `console.warn`); every complete row before it is kept.
 * @throws RowParseError for any other bad line.
 */
export async function* readTrainingRowsFile(
  path: string,
  { validate = true, onTornLine }: { validate?: boolean; onTornLine?: (torn: TornRowLine) => void } = {},
): AsyncGenerator<TrainingRow> {
  const unterminated = await endsWithoutNewline(path);
  const lines = createInterface({
    input: createReadStream(path, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  let pending: string | undefined;
  for await (const line of lines) {
    if (pending !== undefined) {
      const row = parseTrainingRowLine({ line: pending, lineNumber, validate });
      if (row !== undefined) yield row;
    }
    pending = line;
    lineNumber++;
  }
  if (pending === undefined) return;
  try {
    const row = parseTrainingRowLine({ line: pending, lineNumber, validate });
    if (row !== undefined) yield row;
  } catch (error) {
    let json = true;
    try {
      JSON.parse(pending);
    } catch {
      json = false;
    }
    if (!unterminated || json || !RowParseError.isInstance(error)) throw error;
    const torn = { line: lineNumber, length: pending.length, reason: (error as RowParseError).reason };
    if (onTornLine !== undefined) onTornLine(torn);
    else console.warn(`${path}: line ${torn.line} is torn (no final newline, not JSON); skipped`);
  }
}

/** Whether a non-empty file's last byte is not `\n`. */
async function endsWithoutNewline(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    await handle.close();
  }
}
