import { describe, expect, it } from "vitest";
import { convertAnthropicMessagesRequest } from "../anthropic-messages/convert-anthropic-messages-request";
import { convertChatCompletionsRequest } from "../chat-completions/convert-chat-completions-request";
import { convertResponsesRequest } from "../responses/convert-responses-request";
import { locateImageParts } from "./locate-image-parts";

const A = "data:image/png;base64,QUFB";
const B = "https://example.com/b.png";

/** The canonical image URLs of a converted request, in order. */
function canonicalUrls(messages: { content: unknown }[]): string[] {
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content.filter((p) => p.type === "image_url").map((p) => p.image_url.url as string)
      : [],
  );
}

describe("locateImageParts", () => {
  it("should name Chat image parts, user and tool, in canonical order", () => {
    const body = {
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "x" },
            { type: "image_url", image_url: { url: A, detail: "low" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c", content: [{ type: "image_url", image_url: B }] },
      ],
    };
    const wire = locateImageParts("chat-completions", body);
    expect(wire).toEqual([
      { path: "messages[0].content[1]", url: A },
      { path: "messages[2].content[0]", url: B },
    ]);
    expect(canonicalUrls(convertChatCompletionsRequest(body).request.messages)).toEqual(
      wire.map((w) => w.url),
    );
  });

  it("should name Responses input_image parts in messages and function_call_output", () => {
    const body = {
      model: "m",
      instructions: "be brief",
      input: [
        {
          role: "user",
          content: [
            { type: "input_image", image_url: A },
            { type: "input_text", text: "x" },
          ],
        },
        { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
        {
          type: "function_call_output",
          call_id: "c",
          output: [
            { type: "input_text", text: "y" },
            { type: "input_image", image_url: B },
          ],
        },
      ],
    };
    const wire = locateImageParts("responses", body);
    expect(wire).toEqual([
      { path: "input[0].content[0]", url: A },
      { path: "input[2].output[1]", url: B },
    ]);
    expect(canonicalUrls(convertResponsesRequest(body).request.messages)).toEqual(wire.map((w) => w.url));
  });

  it("should name Anthropic image blocks, base64 and URL, also inside tool_result", () => {
    const body = {
      model: "m",
      max_tokens: 10,
      system: "s",
      messages: [
        {
          role: "user",
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "QUFB" } }],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t",
              content: [
                { type: "text", text: "z" },
                { type: "image", source: { type: "url", url: B } },
              ],
            },
            { type: "text", text: "next" },
          ],
        },
      ],
    };
    const wire = locateImageParts("anthropic-messages", body);
    expect(wire).toEqual([
      { path: "messages[0].content[0]", url: A },
      { path: "messages[2].content[0].content[1]", url: B },
    ]);
    expect(canonicalUrls(convertAnthropicMessagesRequest(body).request.messages)).toEqual(
      wire.map((w) => w.url),
    );
  });
});
