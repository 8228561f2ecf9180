import type { CorpusDocument } from "./veloran-data";

const STOPWORDS = new Set(
  "a an and are as at by did does for from how in is it its of on or the to was were what when where which who whom whose with".split(
    " ",
  ),
);

/** Lower-cased word tokens without stopwords (apostrophes kept inside words: `brask's`). */
export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? []).filter(
    (token) => !STOPWORDS.has(token),
  );
}

/**
 * Ranks corpus passages for a query by the summed inverse document frequency of the query words they
 * contain (title words count twice), a small lexical retriever in the spirit of BM25 without length
 * normalisation. Ties keep corpus order; passages sharing no word are left out.
 * @returns At most `limit` passages, best first.
 */
export function retrievePassages({
  corpus,
  query,
  limit = 3,
}: {
  corpus: readonly CorpusDocument[];
  query: string;
  limit?: number;
}): CorpusDocument[] {
  const documents = corpus.map((document) => ({
    document,
    title: new Set(tokenize(document.title)),
    words: new Set(tokenize(`${document.title} ${document.text}`)),
  }));
  const idf = (term: string) => {
    const containing = documents.filter(({ words }) => words.has(term)).length;
    return Math.log(1 + (documents.length - containing + 0.5) / (containing + 0.5));
  };
  const terms = [...new Set(tokenize(query))];
  return documents
    .map(({ document, title, words }, order) => ({
      document,
      order,
      score: terms.reduce(
        (sum, term) => sum + (words.has(term) ? idf(term) * (title.has(term) ? 2 : 1) : 0),
        0,
      ),
    }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ document }) => document);
}
