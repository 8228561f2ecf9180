import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../src/index";

describe("toAnthropicMessages", () => {
  it("should move system and developer messages to `system` and keep user and assistant text", () => {
    expect(
      toAnthropicMessages([
        { role: "system", content: "A" },
        { role: "developer", content: [{ type: "text", text: "B" }] },
        { role: "user", content: "Q" },
        { role: "assistant", content: "R" },
      ]),
    ).toEqual({
      system: "A\n\nB",
      messages: [
        { role: "user", content: "Q" },
        { role: "assistant", content: "R" },
      ],
    });
    expect(toAnthropicMessages([{ role: "user", content: "Q" }]).system).toBeUndefined();
  });

  it("should name the message of an unsupported role or content", () => {
    expect(() => toAnthropicMessages([{ role: "tool", content: "x" }])).toThrow(
      'messages[0].role: "tool" is not supported',
    );
    expect(() => toAnthropicMessages([{ role: "user", content: [{ type: "image_url" }] }])).toThrow(
      "messages[0].content[0]: only text parts are supported",
    );
  });
});
