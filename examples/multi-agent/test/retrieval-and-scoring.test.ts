import { describe, expect, it } from "vitest";
import {
  extractAnswer,
  normalizeAnswer,
  readCorpus,
  readQuestions,
  retrievePassages,
  scoreAnswer,
  tokenize,
} from "../src/index";

const corpus = readCorpus();

describe("retrievePassages", () => {
  it("should rank title matches first and keep corpus order on ties", () => {
    expect(retrievePassages({ corpus, query: "capital of Marrow" }).map((passage) => passage.id)).toEqual([
      "marrow",
      "keld",
      "saffra",
    ]);
    expect(
      retrievePassages({ corpus, query: "where does the Sel rise" }).map((passage) => passage.id),
    ).toEqual(["sel", "lunmere"]);
    expect(retrievePassages({ corpus, query: "zebra" })).toEqual([]);
  });

  it("should find the passage holding the answer of every reference hop in its top 3", () => {
    let hops = 0;
    for (const question of readQuestions()) {
      const found = question.hops.map((hop) => hop.answer);
      for (const hop of question.hops) {
        const query = hop.query.replace(/\{(\d+)\}/g, (_, index: string) => found[Number(index)]!);
        const texts = retrievePassages({ corpus, query }).map((passage) => passage.text);
        expect({ query, found: texts.some((text) => text.includes(hop.answer)) }).toEqual({
          query,
          found: true,
        });
        hops++;
      }
    }
    expect(hops).toBe(25);
  });

  it("should tokenize without stopwords, keeping apostrophes inside words", () => {
    expect(tokenize("Which comet is Brask's Veil?")).toEqual(["comet", "brask's", "veil"]);
  });
});

describe("answer scoring", () => {
  it("should normalise case, punctuation, articles and thousands separators", () => {
    expect(normalizeAnswer("The Amberflow.")).toBe("amberflow");
    expect(normalizeAnswer("Brask’s  Veil")).toBe("brasks veil");
    expect(normalizeAnswer("2,140 metres")).toBe("2140 metres");
  });

  it("should take the text after the last 'Answer:'", () => {
    expect(extractAnswer("I searched twice.\nAnswer: Mount Caul")).toBe("Mount Caul");
    expect(extractAnswer("Answer: x\nAnswer: Keld\nThanks")).toBe("Keld");
    expect(extractAnswer("Oldwick")).toBe("Oldwick");
  });

  it("should score exact matches against any accepted answer", () => {
    expect(scoreAnswer({ predicted: "the amberflow", answers: ["Amberflow"] })).toBe(1);
    expect(scoreAnswer({ predicted: "2140", answers: ["2,140 metres", "2140"] })).toBe(1);
    expect(scoreAnswer({ predicted: "Amber", answers: ["Amberflow"] })).toBe(0);
    expect(scoreAnswer({ predicted: "", answers: [""] })).toBe(0);
    expect(scoreAnswer({ predicted: null, answers: ["Keld"] })).toBe(0);
  });
});
