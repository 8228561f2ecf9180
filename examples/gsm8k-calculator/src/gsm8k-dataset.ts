import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { normalizeNumber } from "./extract-final-number";

/**
 * The bundled GSM8K rows (first 300 of the test split, MIT licence in `data/LICENSE`), found from this
 * module upwards: `data/` of this package (from `src/` or `dist/`), or of this package installed under a
 * `node_modules/` (when another example bundles this code).
 */
export const GSM8K_DATA_FILE = findDataFile(join("data", "gsm8k-test-300.jsonl"));

function findDataFile(relative: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [
      join(dir, relative),
      join(dir, "node_modules/@relax-examples/gsm8k-calculator", relative),
    ]) {
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return fileURLToPath(new URL(`../${relative}`, import.meta.url));
    dir = parent;
  }
}

/** One GSM8K row as published: `answer` holds the worked solution, `<<expr=value>>` annotations and `#### N`. */
export const gsm8kRowSchema = z.object({ question: z.string(), answer: z.string() });
export type Gsm8kRow = z.infer<typeof gsm8kRowSchema>;

/** One calculator annotation of a reference solution, `<<expression=value>>`. */
export interface Gsm8kStep {
  expression: string;
  /** The value as annotated (may carry trailing zeros, e.g. `"16.00"`). */
  value: string;
}

/** A reference solution taken apart. */
export interface Gsm8kSolution {
  /** The calculator annotations in order. */
  steps: Gsm8kStep[];
  /** The number after `####`, normalised (`"2,125"` → `"2125"`). */
  finalAnswer: string;
}

const ANNOTATION = /<<([^=<>]*)=([^<>]*)>>/g;

/**
 * Splits a GSM8K reference `answer` into its calculator steps and final number.
 * @throws Error when the text has no `#### ` final answer.
 */
export function parseGsm8kSolution(answer: string): Gsm8kSolution {
  const marker = answer.lastIndexOf("####");
  if (marker < 0) throw new Error("GSM8K answer has no '#### <number>' line");
  const steps = [...answer.slice(0, marker).matchAll(ANNOTATION)].map((match) => ({
    expression: (match[1] ?? "").trim(),
    value: (match[2] ?? "").trim(),
  }));
  return { steps, finalAnswer: normalizeNumber(answer.slice(marker + 4).trim()) };
}

/**
 * Reads GSM8K rows from a JSONL file (the bundled sample by default).
 * @throws Error naming the 1-based line of an invalid row.
 */
export function readGsm8kRows(file: string = GSM8K_DATA_FILE): Gsm8kRow[] {
  const rows: Gsm8kRow[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() === "") return;
      const parsed = gsm8kRowSchema.safeParse(JSON.parse(line));
      if (!parsed.success)
        throw new Error(`${file}:${i + 1}: not a GSM8K row (${parsed.error.issues[0]?.message})`);
      rows.push(parsed.data);
    });
  return rows;
}
