import { parseTrainingRowsJsonl, type TrainingRow } from "@relax/export";
import { ViewInputError } from "../errors/view-input-error";
import { debugDumpSchema, type ViewDebugDump } from "./debug-dump-schema";

/** One input of the viewer after parsing: a debug dump, or a training-rows file. */
export type ViewSource =
  | { kind: "dump"; name: string; dump: ViewDebugDump }
  | { kind: "rows"; name: string; rows: TrainingRow[] };

/**
 * Parses one file's text: a debug dump (one JSON document with `groups`) or a training-rows file (JSONL,
 * one row a line, validated by `@relax/export`'s row schema).
 *
 * @param name - the file name, used in the page and in error messages.
 * @throws ViewInputError naming the file and the field path (`<name>: groups[0].samples[1].tokens: …`).
 */
export function parseViewSource(name: string, text: string): ViewSource {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") && !name.endsWith(".jsonl")) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      // A JSONL file of rows also starts with "{"; fall through to the rows parser below.
      if (!trimmed.includes("\n"))
        throw new ViewInputError(`${name}: $: is not valid JSON (${String(error)})`);
    }
    if (json !== undefined) {
      const parsed = debugDumpSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const path = issue.path.reduce<string>(
          (text, key) =>
            typeof key === "number" ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key),
          "",
        );
        throw new ViewInputError(`${name}: ${path || "$"}: ${issue.message}`);
      }
      return { kind: "dump", name, dump: parsed.data };
    }
  }
  try {
    return { kind: "rows", name, rows: parseTrainingRowsJsonl(text) };
  } catch (error) {
    throw new ViewInputError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
