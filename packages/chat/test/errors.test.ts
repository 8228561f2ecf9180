import { describe, expect, it } from "vitest";
import { ChatTemplateError } from "../src/errors/chat-template-error";
import { ObservationDeltaError } from "../src/errors/observation-delta-error";
import { RelaxError } from "../src/errors/relax-error";
import { TokenizerLoadError } from "../src/errors/tokenizer-load-error";

describe("RelaxError markers", () => {
  const load = new TokenizerLoadError({
    file: "/m/tokenizer.json",
    reason: "malformed_json",
    detail: "Unexpected end",
  });
  const template = new ChatTemplateError({ reason: "raise_exception", message: "roles must alternate" });
  const delta = new ObservationDeltaError({ reason: "tokens_not_prefix", message: "at 3", cause: template });

  it("should tell error classes apart by marker", () => {
    expect([load, template, delta].map((error) => RelaxError.isInstance(error))).toEqual([true, true, true]);
    expect(TokenizerLoadError.isInstance(load)).toBe(true);
    expect(TokenizerLoadError.isInstance(template)).toBe(false);
    expect(ChatTemplateError.isInstance(delta)).toBe(false);
    expect(ObservationDeltaError.isInstance(delta)).toBe(true);
    expect(RelaxError.isInstance(new Error("plain"))).toBe(false);
    expect(RelaxError.isInstance(null)).toBe(false);
  });

  it("should recognise an error from another copy of the package by its global symbols", () => {
    const foreign = Object.assign(new Error("copy"), {
      [Symbol.for("relax.error")]: true,
      [Symbol.for("relax.error.ChatTemplateError")]: true,
    });
    expect(ChatTemplateError.isInstance(foreign)).toBe(true);
    expect(RelaxError.isInstance(foreign)).toBe(true);
    expect(TokenizerLoadError.isInstance(foreign)).toBe(false);
  });

  it("should carry name, typed fields, message and cause", () => {
    expect(load.name).toBe("TokenizerLoadError");
    expect(load.message).toBe("/m/tokenizer.json: is not valid JSON (Unexpected end)");
    expect([load.file, load.reason]).toEqual(["/m/tokenizer.json", "malformed_json"]);
    expect(template.message).toBe("roles must alternate");
    expect(
      new ChatTemplateError({ reason: "invalid_input", message: "bad", path: "messages[0]" }).message,
    ).toBe("messages[0]: bad");
    expect(delta.message).toBe("observation delta (tokens_not_prefix): at 3");
    expect(delta.cause).toBe(template);
    expect(delta).toBeInstanceOf(Error);
  });
});
