import type { z } from "zod";
import { formatFieldPath } from "../errors/format-field-path";
import { SessionOutputError } from "../errors/session-output-error";
import {
  EXPORT_RECORD_KEYS,
  type ExportRecord,
  exportRecordSchema,
  IMPLICIT_OUTPUT_KEYS,
  implicitOutputSchema,
  type ParsedSessionOutput,
  type SessionOutputWarning,
} from "./session-output";

/**
 * Parses the text of `RELAX_OUTPUT_JSON` (pure; no I/O; see docs/contract.md#session-input-output):
 * - empty or whitespace-only → implicit export;
 * - a JSON object without `messages` → implicit export with its `metadata` and `reward`;
 * - a JSON object with `messages` → one explicit record;
 * - text that is not one JSON document → JSONL, one record per non-blank line;
 * - a JSON array (or any non-object value) → rejected.
 * Every record is validated with zod; names must be non-empty and unique. Unknown keys are ignored and
 * reported in `warnings`.
 *
 * @param text the file content (a leading UTF-8 BOM is ignored).
 * @returns the export request and its warnings.
 * @throws {SessionOutputError} naming the 1-based `line` and the field `path` of the first problem.
 */
export function parseSessionOutput(text: string): ParsedSessionOutput {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const warnings: SessionOutputWarning[] = [];
  if (body.trim() === "") return { output: { kind: "implicit" }, warnings };

  let document: unknown;
  let documentError: unknown;
  try {
    document = JSON.parse(body);
  } catch (error) {
    documentError = error;
  }
  if (documentError !== undefined) return parseJsonl(body, documentError);

  if (Array.isArray(document)) {
    throw new SessionOutputError({
      message:
        "a JSON array is not a session output; write one JSON object, or JSONL records (one object per line)",
    });
  }
  if (!isPlainObject(document)) {
    throw new SessionOutputError({
      message: `expected a JSON object or JSONL records, got ${jsonTypeOf(document)}`,
    });
  }
  if ("messages" in document) {
    return { output: { kind: "records", records: [parseRecord(document, 1, warnings)] }, warnings };
  }
  warnUnknownKeys(document, IMPLICIT_OUTPUT_KEYS, null, warnings);
  const parsed = validate(implicitOutputSchema, document, 1);
  return {
    output: {
      kind: "implicit",
      ...(parsed.metadata != null && { metadata: parsed.metadata }),
      ...(parsed.reward !== undefined && { reward: parsed.reward }),
      ...(parsed.turn_rewards !== undefined && { turn_rewards: parsed.turn_rewards }),
    },
    warnings,
  };
}

function parseJsonl(body: string, documentError: unknown): ParsedSessionOutput {
  const warnings: SessionOutputWarning[] = [];
  const records: ExportRecord[] = [];
  const firstLineByName = new Map<string, number>();
  body.split("\n").forEach((rawLine, index) => {
    const lineNumber = index + 1;
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new SessionOutputError({
        line: lineNumber,
        message: `malformed JSON (${errorMessage(error)}); the file is neither one JSON document (${errorMessage(documentError)}) nor valid JSONL`,
        cause: error,
      });
    }
    if (!isPlainObject(value)) {
      throw new SessionOutputError({
        line: lineNumber,
        message: `each JSONL line must be a record object, got ${jsonTypeOf(value)}`,
      });
    }
    const record = parseRecord(value, lineNumber, warnings);
    const firstLine = firstLineByName.get(record.name);
    if (firstLine !== undefined) {
      throw new SessionOutputError({
        line: lineNumber,
        path: "name",
        message: `duplicate name ${JSON.stringify(record.name)} (first used on line ${firstLine}); names must be unique within a session`,
      });
    }
    firstLineByName.set(record.name, lineNumber);
    records.push(record);
  });
  return { output: { kind: "records", records }, warnings };
}

function parseRecord(
  value: Record<string, unknown>,
  line: number,
  warnings: SessionOutputWarning[],
): ExportRecord {
  warnUnknownKeys(value, EXPORT_RECORD_KEYS, line, warnings);
  const parsed = validate(exportRecordSchema, value, line);
  return {
    name: parsed.name,
    messages: parsed.messages,
    ...(parsed.tools != null && { tools: parsed.tools }),
    ...(parsed.chat_template_kwargs != null && { chat_template_kwargs: parsed.chat_template_kwargs }),
    ...(parsed.metadata != null && { metadata: parsed.metadata }),
    ...(parsed.reward !== undefined && { reward: parsed.reward }),
    ...(parsed.turn_rewards !== undefined && { turn_rewards: parsed.turn_rewards }),
    line,
  };
}

function validate<Schema extends z.ZodType>(schema: Schema, value: unknown, line: number): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue ? formatFieldPath(issue.path) : null;
  const missing = issue?.code === "invalid_type" && valueAt(value, issue.path) === undefined;
  const message = missing ? "is required" : describeIssue(issue, issue ? valueAt(value, issue.path) : value);
  throw new SessionOutputError({ line, path: path || null, message, cause: result.error });
}

function warnUnknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  line: number | null,
  warnings: SessionOutputWarning[],
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    warnings.push({
      line,
      key,
      message: `unknown key ${JSON.stringify(key)} ignored${line != null ? ` (line ${line})` : ""}`,
    });
  }
}

function describeIssue(issue: z.core.$ZodIssue | undefined, actual: unknown): string {
  if (issue === undefined) return "invalid";
  const got = jsonTypeOf(actual);
  if (issue.code === "invalid_type") {
    const expected =
      issue.expected === "record"
        ? "an object"
        : issue.expected === "array"
          ? "an array"
          : `a ${issue.expected}`;
    return `expected ${expected}, got ${got}`;
  }
  if (issue.code === "invalid_union" && issue.path.at(-1) === "reward") {
    return `expected a number, an object or null, got ${got}`;
  }
  if (issue.code === "invalid_union" && issue.path.at(-1) === "turn_rewards") {
    return `expected an array of numbers or nulls (one per turn) or an object keyed by turn index, got ${got}`;
  }
  return issue.message;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
