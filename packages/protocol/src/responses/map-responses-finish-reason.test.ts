import { describe, expect, it } from "vitest";
import { mapResponsesFinishReason } from "./map-responses-finish-reason";

describe("mapResponsesFinishReason", () => {
  it.each([
    ["stop", { status: "completed", incomplete_details: null }],
    ["tool_calls", { status: "completed", incomplete_details: null }],
    ["length", { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }],
  ] as const)("should map %s", (finishReason, expected) => {
    expect(mapResponsesFinishReason(finishReason)).toEqual(expected);
  });

  it("should reject a value outside the canonical union", () => {
    expect(() => mapResponsesFinishReason("abort" as never)).toThrow('unexpected value "abort"');
  });
});
