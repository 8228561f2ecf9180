import { describeErrorContract } from "@relax-tools/error-conformance";
import { expect, it } from "vitest";
import * as chat from "../src/index";

describeErrorContract(
  {
    packageName: "@relax/chat",
    exports: chat,
    // `RelaxError` is the root: it carries `relax.error` only, and its `isInstance` is true for any Relax error.
    unmarkedRoots: ["RelaxError"],
    cases: [
      { name: "RelaxError", error: new chat.RelaxError({ name: "RelaxError", message: "m" }) },
      { name: "FieldError", error: new chat.FieldError({ name: "FieldError", path: "a[0]", reason: "bad" }) },
      {
        name: "CanonicalizationError",
        error: new chat.CanonicalizationError({ path: "messages[0].role", reason: "bad" }),
        ancestors: ["FieldError"],
      },
      {
        name: "MediaInputError",
        error: new chat.MediaInputError({ path: "messages[0].content[1]", reason: "bad" }),
        ancestors: ["FieldError"],
      },
      {
        name: "InvalidParserInputError",
        error: new chat.InvalidParserInputError({ path: "tools[0]", reason: "bad" }),
        ancestors: ["FieldError"],
      },
      {
        name: "UnknownParserError",
        error: new chat.UnknownParserError({
          parserKind: "reasoning",
          parserName: "x",
          validNames: ["qwen3"],
        }),
      },
      { name: "ChatTemplateError", error: new chat.ChatTemplateError({ reason: "render", message: "m" }) },
      {
        name: "ObservationDeltaError",
        error: new chat.ObservationDeltaError({ reason: "text_not_prefix", message: "m" }),
      },
      { name: "TokenizerLoadError", error: new chat.TokenizerLoadError({ file: "f", reason: "not_found" }) },
    ],
  },
  () => {
    it("should write field errors as `path: reason` and keep the cause", () => {
      const cause = new Error("root");
      const error = new chat.CanonicalizationError({ path: "messages[2].content", reason: "bad", cause });
      expect([error.message, error.path, error.reason, error.param]).toEqual([
        "messages[2].content: bad",
        "messages[2].content",
        "bad",
        "messages",
      ]);
      expect(error.cause).toBe(cause);
      expect(chat.FieldError.isInstance(error)).toBe(true);
    });

    it("should format zod issue paths the one way", () => {
      expect(chat.formatFieldPath(["meta_info", "output_token_logprobs", 3, 1])).toBe(
        "meta_info.output_token_logprobs[3][1]",
      );
      expect(chat.formatFieldPath([3, "content", 0, "type"], "input")).toBe("input[3].content[0].type");
      expect(chat.formatFieldPath([0, "x"])).toBe("[0].x");
      expect(chat.formatFieldPath([], "body")).toBe("body");
      expect(chat.formatFieldPath([])).toBe("");
    });
  },
);
