import { describe, expect, it } from "vitest";
import { splitHarmonyMessages } from "./harmony-messages";

describe("splitHarmonyMessages", () => {
  it("should split messages, read channels and recipients in either header position, and keep text between", () => {
    const text =
      "<|channel|>analysis<|message|>think<|end|>x<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|><|start|>assistant<|channel|>final<|message|>done";
    expect(splitHarmonyMessages(text)).toEqual([
      {
        type: "message",
        start: 0,
        end: 42,
        channel: "analysis",
        recipient: undefined,
        body: "think",
        terminator: "<|end|>",
        headerComplete: true,
      },
      { type: "text", start: 42, end: 43 },
      {
        type: "message",
        start: 43,
        end: 123,
        channel: "commentary",
        recipient: "functions.f",
        body: "{}",
        terminator: "<|call|>",
        headerComplete: true,
      },
      {
        type: "message",
        start: 123,
        end: 172,
        channel: "final",
        recipient: undefined,
        body: "done",
        terminator: undefined,
        headerComplete: true,
      },
    ]);
  });

  it("should mark a header cut off before <|message|>", () => {
    expect(splitHarmonyMessages("<|channel|>commentary to=functions.f <|cons")).toEqual([
      {
        type: "message",
        start: 0,
        end: 43,
        channel: "commentary",
        recipient: "functions.f",
        body: "",
        terminator: undefined,
        headerComplete: false,
      },
    ]);
  });

  it("should return plain text as one text item", () => {
    expect(splitHarmonyMessages("hello")).toEqual([{ type: "text", start: 0, end: 5 }]);
  });
});
