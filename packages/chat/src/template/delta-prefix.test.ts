import { describe, expect, it } from "vitest";
import { ChatTemplateError } from "../errors/chat-template-error";
import { ObservationDeltaError, type ObservationDeltaFailure } from "../errors/observation-delta-error";
import type { ChatMessage } from "../messages/chat-message";
import type { TextTokenizer } from "../tokenizer/text-tokenizer";
import { buildPrefixInfo, guard, type TemplateRender, templateDelta } from "./delta-prefix";

/** One id per character (its code), except `|`, a boundary token (1000), and `merge` pairs. */
function charTokenizer(merge: Record<string, number> = {}): TextTokenizer {
  return {
    encode: (text) => {
      const ids: number[] = [];
      for (let i = 0; i < text.length; i++) {
        const pair = text.slice(i, i + 2);
        if (merge[pair] !== undefined) {
          ids.push(merge[pair]);
          i++;
        } else ids.push(text[i] === "|" ? 1000 : text.charCodeAt(i));
      }
      return ids;
    },
  } as TextTokenizer;
}
const boundaryIds = new Set([1000]);

/** A ChatML-like template: `|role:content|` per message, one newline after each, `|assistant:` to generate. */
const chatml: TemplateRender = (messages, _tools, _kwargs, addGenerationPrompt) =>
  messages.map((m) => `|${m.role}:${m.content}|\n`).join("") + (addGenerationPrompt ? "|assistant:" : "");

const next: ChatMessage[] = [{ role: "user", content: "Next" }];

function build(render: TemplateRender, tokenizer = charTokenizer()) {
  return buildPrefixInfo({
    render,
    tokenizer,
    boundaryIds,
    tools: [],
    kwargs: { k: 1 },
    template: "t",
    fastDeltas: true,
  });
}

function reasonOf(run: () => unknown): ObservationDeltaFailure {
  try {
    run();
  } catch (error) {
    if (ObservationDeltaError.isInstance(error)) return error.reason;
    throw error;
  }
  throw new Error("did not throw");
}

describe("buildPrefixInfo", () => {
  it("should cut the dummy before its trailing newlines and learn the turn close", () => {
    const info = build(chatml);
    expect(info.dummyText).toBe("|system:You are a helpful assistant.|\n|user:I am a user.|");
    expect(info.dummyIds.at(-1)).toBe(1000);
    expect(info.dummyEndsAtBoundary).toBe(true);
    expect(info.kwargs).toEqual({ k: 1 });
    expect(info.turnClose).toEqual({ text: "|\n", turnEndText: "|", turnEndIds: [1000], trailingText: "\n" });
    // No fast writer is verified for this template source.
    expect(info.fastDelta).toBeUndefined();
  });

  it("should refuse a template that hides assistant content or ends assistant turns differently", () => {
    const hides: TemplateRender = (messages, ...rest) =>
      chatml(
        messages.map((m) => (m.role === "assistant" ? { ...m, content: "" } : m)),
        ...rest,
      );
    expect(reasonOf(() => build(hides))).toBe("unstable_turn_close");
    const extraNewline: TemplateRender = (messages, ...rest) =>
      chatml(messages, ...rest).replace(/RELAX_TURN_CLOSE_PROBE\|\n/, "RELAX_TURN_CLOSE_PROBE|\n\n");
    expect(reasonOf(() => build(extraNewline))).toBe("unstable_turn_close");
  });
});

describe("templateDelta", () => {
  const delta = (render: TemplateRender, tokenizer = charTokenizer(), info = build(render, tokenizer)) =>
    templateDelta({ info, messages: next, tools: [], render, tokenizer, boundaryIds });

  it("should return the full render's ids and text after the dummy's", () => {
    const { templateIds, text } = delta(chatml);
    expect(text).toBe("\n|user:Next|\n|assistant:");
    expect(templateIds).toEqual(charTokenizer().encode(text));
  });

  it("should refuse a changed prefix text, a token merge across the cut and a cut between ordinary tokens", () => {
    const counted: TemplateRender = (messages, ...rest) => `${messages.length}${chatml(messages, ...rest)}`;
    expect(reasonOf(() => delta(counted, charTokenizer(), build(chatml)))).toBe("text_not_prefix");
    expect(reasonOf(() => delta(chatml, charTokenizer({ "|\n": 2000 })))).toBe("tokens_not_prefix");
    const plain: TemplateRender = (messages) => messages.map((m) => ` ${m.content}`).join("");
    expect(reasonOf(() => delta(plain))).toBe("not_special_boundary");
  });
});

describe("guard", () => {
  it("should turn a template's raise_exception into render_failed and pass anything else through", () => {
    const raised = new ChatTemplateError({ reason: "raise_exception", message: "no" });
    expect(
      reasonOf(() =>
        guard(() => {
          throw raised;
        }),
      ),
    ).toBe("render_failed");
    const other = new TypeError("bug");
    expect(() =>
      guard(() => {
        throw other;
      }),
    ).toThrow(other);
    expect(guard(() => "ok")).toBe("ok");
  });
});
