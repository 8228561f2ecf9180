import { basename, extname } from "node:path";
import { z } from "zod";

/** One eval dataset: its name (in metric keys, logs, debug dumps) and its JSONL file. */
export interface EvalDatasetSpec {
  /** `eval/<name>/…` metric prefix; letters, digits, `_`, `-` and `.`, not a file name. */
  name: string;
  /** JSONL file, as given (relative paths resolve against the run's directory). */
  path: string;
}

/**
 * What `--eval-prompt-data` accepts, on the command line or in a config file:
 * - `"PATH"`: one dataset, named after the file stem (`data/aime.jsonl` → `aime`);
 * - `["NAME", "PATH", "NAME", "PATH", …]`: name/path pairs (the flag's `NAME PATH [NAME PATH …]`, or the
 *   flag repeated; a single-element list is the `PATH` form);
 * - `{ NAME: PATH, … }`: a mapping, in its key order;
 * - `[{ name: NAME, path: PATH }, …]`: a list of objects.
 */
export type EvalPromptDataInput =
  | string
  | readonly string[]
  | Readonly<Record<string, string>>
  | ReadonlyArray<Readonly<EvalDatasetSpec>>;

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const fileLike = /\.(jsonl|json|ndjson)$/i;

/** The dataset name of the single-`PATH` form: the file name without its extension. */
export function evalDatasetNameOf(path: string): string {
  return basename(path, extname(path));
}

/**
 * Normalises every form of {@link EvalPromptDataInput} to a list of {@link EvalDatasetSpec}, in the
 * order given (the order the datasets run in).
 *
 * @returns the datasets, or `{ error }` with a message that reads after `--eval-prompt-data: `.
 */
export function parseEvalPromptData(value: unknown): EvalDatasetSpec[] | { error: string } {
  const pairs: Array<[unknown, unknown]> = [];
  const single =
    typeof value === "string" ? value : Array.isArray(value) && value.length === 1 ? value[0] : undefined;
  if (typeof single === "string") {
    const name = evalDatasetNameOf(single);
    if (!namePattern.test(name) || fileLike.test(name)) {
      return {
        error: `cannot name a dataset after the file "${single}" (names are letters, digits, "_", "-" or "."); give NAME PATH`,
      };
    }
    pairs.push([name, single]);
  } else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    const items = value as string[];
    if (items.length % 2 !== 0) {
      return {
        error: `expects PATH or NAME PATH pairs, got ${items.length} values (${items.map((item) => JSON.stringify(item)).join(" ")})`,
      };
    } else for (let i = 0; i < items.length; i += 2) pairs.push([items[i], items[i + 1]]);
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      if (typeof item !== "object" || item === null || Array.isArray(item)) {
        return { error: `[${index}] must be a {name, path} object` };
      }
      const { name, path, ...rest } = item as Record<string, unknown>;
      const unknownKeys = Object.keys(rest);
      if (unknownKeys.length > 0) return { error: `[${index}]: unknown key(s) ${unknownKeys.join(", ")}` };
      pairs.push([name, path]);
    }
  } else if (typeof value === "object" && value !== null) {
    pairs.push(...Object.entries(value));
  } else {
    return { error: "expects PATH, NAME PATH pairs, a {name: path} mapping or a list of {name, path}" };
  }
  if (pairs.length === 0) return { error: "names no dataset" };

  const datasets: EvalDatasetSpec[] = [];
  for (const [name, path] of pairs) {
    if (typeof name === "string" && (fileLike.test(name) || name.includes("/"))) {
      return {
        error: `dataset name "${name}" looks like a file; give NAME PATH pairs (--eval-prompt-data aime aime.jsonl gsm8k gsm8k.jsonl) or one PATH`,
      };
    }
    if (typeof name !== "string" || !namePattern.test(name)) {
      return {
        error: `dataset name ${JSON.stringify(name)} must be letters, digits, "_", "-" or "." (it prefixes eval/<name>/ metrics)`,
      };
    }
    if (typeof path !== "string" || path.length === 0) {
      return { error: `dataset "${name}" needs a non-empty path` };
    }
    if (datasets.some((dataset) => dataset.name === name)) {
      return { error: `dataset name "${name}" is given twice` };
    }
    datasets.push({ name, path });
  }
  return datasets;
}

/**
 * The zod schema of `evalPromptData`: accepts every {@link EvalPromptDataInput} form and outputs the
 * normalised list; a bad value is one issue whose message names the problem.
 */
export const evalPromptDataSchema = z.custom<EvalPromptDataInput>().transform((value, context) => {
  const parsed = parseEvalPromptData(value);
  if ("error" in parsed) {
    context.addIssue({ code: "custom", message: parsed.error });
    return z.NEVER;
  }
  return parsed;
});
