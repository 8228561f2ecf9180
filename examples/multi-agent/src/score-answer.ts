/**
 * Normalises a short answer for exact match (the SQuAD / Search-R1 convention): lower case, no
 * punctuation (thousands separators and apostrophes dropped), no articles, single spaces.
 */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/(\d),(?=\d{3})/g, "$1")
    .replace(/['’]/g, "")
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .replace(/\b(a|an|the)\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The answer in a main-agent reply: the text after the last `Answer:`, else the whole reply (first line). */
export function extractAnswer(reply: string): string {
  const marker = reply.lastIndexOf("Answer:");
  const text = marker >= 0 ? reply.slice(marker + "Answer:".length) : reply;
  return text.trim().split("\n")[0]!.trim();
}

/** Exact match after {@link normalizeAnswer} against any accepted answer: 1 or 0. */
export function scoreAnswer({
  predicted,
  answers,
}: {
  predicted: string | null;
  answers: readonly string[];
}): 0 | 1 {
  if (predicted === null) return 0;
  const normalized = normalizeAnswer(predicted);
  return normalized !== "" && answers.some((answer) => normalizeAnswer(answer) === normalized) ? 1 : 0;
}
