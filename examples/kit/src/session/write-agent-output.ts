import { writeFileSync } from "node:fs";
import { AgentSessionError } from "./agent-session-error";
import type { ExportRecord, ImplicitOutput } from "./export-record";

/** Options of {@link writeAgentOutput}. */
export interface WriteAgentOutputOptions {
  /** `RELAX_OUTPUT_JSON`; `undefined` prints the output to stdout (the agent was run alone). */
  outputPath: string | undefined;
  /** `{metadata, reward}` for the implicit single context, or explicit records (one JSONL line each). */
  output: ImplicitOutput | readonly ExportRecord[];
  /** Where standalone output goes. @default process.stdout */
  stdout?: { write(text: string): unknown };
}

/**
 * Writes the session output in the shape Relax parses: one JSON object for the implicit export, or JSONL
 * records for explicit export.
 * @see docs/contract.md#session-input-output, docs/contract.md#export-records
 * @throws AgentSessionError when a record name is empty or repeated, or the file cannot be written.
 */
export function writeAgentOutput({
  outputPath,
  output,
  stdout = process.stdout,
}: WriteAgentOutputOptions): void {
  let text: string;
  if (Array.isArray(output)) {
    const records = output as readonly ExportRecord[];
    const seen = new Set<string>();
    records.forEach((record, i) => {
      if (record.name === "") {
        throw new AgentSessionError({ field: `records[${i}].name`, reason: "must be a non-empty string" });
      }
      if (seen.has(record.name)) {
        throw new AgentSessionError({
          field: `records[${i}].name`,
          reason: `duplicate name ${JSON.stringify(record.name)}`,
        });
      }
      seen.add(record.name);
    });
    text = records.map((record) => JSON.stringify(record)).join("\n") + "\n";
  } else {
    text = JSON.stringify(output);
  }
  if (outputPath === undefined) {
    stdout.write(text.endsWith("\n") ? text : text + "\n");
    return;
  }
  try {
    writeFileSync(outputPath, text, "utf8");
  } catch (error) {
    throw new AgentSessionError({
      field: "RELAX_OUTPUT_JSON",
      reason: `cannot write ${outputPath}`,
      cause: error,
    });
  }
}
