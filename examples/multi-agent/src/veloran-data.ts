import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** One passage of the local corpus. */
export const corpusDocumentSchema = z.object({ id: z.string(), title: z.string(), text: z.string() });
export type CorpusDocument = z.infer<typeof corpusDocumentSchema>;

/** One reference step of a multi-hop question: the query (with `{i}` = answer of hop i) and its answer. */
export const questionHopSchema = z.object({ query: z.string(), answer: z.string() });
export type QuestionHop = z.infer<typeof questionHopSchema>;

/** One question of the dataset: accepted answers (first is canonical) and the reference search hops. */
export const veloranQuestionSchema = z.object({
  id: z.string(),
  question: z.string(),
  answers: z.array(z.string()).min(1),
  hops: z.array(questionHopSchema).min(1),
});
export type VeloranQuestion = z.infer<typeof veloranQuestionSchema>;

/** `data/corpus.jsonl`: 16 short passages about the (fictional) Veloran Isles, written for this example. */
export const CORPUS_FILE = findDataFile("corpus.jsonl");
/** `data/questions.jsonl`: 12 multi-hop questions over the corpus, with reference hops. */
export const QUESTIONS_FILE = findDataFile("questions.jsonl");

/**
 * Reads a JSONL file of objects validated by `schema`.
 * @throws Error naming the file and 1-based line of an invalid row.
 */
export function readJsonl<T>(file: string, schema: z.ZodType<T>): T[] {
  const rows: T[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() === "") return;
      const parsed = schema.safeParse(JSON.parse(line));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(
          `${file}:${i + 1}: ${issue?.path.join(".") ?? ""} ${issue?.message ?? "invalid row"}`,
        );
      }
      rows.push(parsed.data);
    });
  return rows;
}

/** The bundled corpus. */
export function readCorpus(file: string = CORPUS_FILE): CorpusDocument[] {
  return readJsonl(file, corpusDocumentSchema);
}

/** The bundled questions. */
export function readQuestions(file: string = QUESTIONS_FILE): VeloranQuestion[] {
  return readJsonl(file, veloranQuestionSchema);
}

/** `data/<name>` of this package, found from this module upwards (works from `src/`, `dist/` and bundles). */
function findDataFile(name: string): string {
  const relative = join("data", name);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [
      join(dir, relative),
      join(dir, "node_modules/@relax-examples/multi-agent", relative),
    ]) {
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return fileURLToPath(new URL(`../${relative}`, import.meta.url));
    dir = parent;
  }
}
