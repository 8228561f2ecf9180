import { EMPTY_TOOL_PARAMETERS, EMPTY_TOOL_RESULT } from "@relax/chat/internal";
import { describe, expect, it } from "vitest";
import { convertResponsesRequest } from "./convert-responses-request";

describe("convertResponsesRequest", () => {
  it("should turn a string input into one user message after the instructions", () => {
    expect(convertResponsesRequest({ input: "hi", instructions: "be brief" }).request.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
    ]);
    expect(convertResponsesRequest({ input: "hi", instructions: "" }).request.messages).toEqual([
      { role: "user", content: "hi" },
    ]);
  });

  it("should coalesce consecutive reasoning, assistant and function_call items into one assistant message", () => {
    const { request } = convertResponsesRequest({
      input: [
        { role: "developer", content: "use tools" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Paris and Rome?" }] },
        {
          type: "reasoning",
          summary: [
            { type: "summary_text", text: "two cities" },
            { type: "summary_text", text: "call twice" },
          ],
          content: [{ type: "reasoning_text", text: "ignored: summary wins" }],
        },
        { type: "function_call", call_id: "c1", name: "w", arguments: '{"city": "Paris"}' },
        { type: "function_call", call_id: "c2", name: "w", arguments: '{"city":"Rome"}' },
        {
          type: "function_call_output",
          call_id: "c1",
          output: [
            { type: "input_text", text: "18" },
            { type: "input_text", text: "C" },
          ],
        },
        { type: "function_call_output", call_id: "c2", output: "" },
        { type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "both known" }] },
        { role: "assistant", content: "Paris 18 C." },
        { role: "user", content: "thanks" },
      ],
    });
    expect(request.messages).toEqual([
      { role: "system", content: "use tools" },
      { role: "user", content: "Paris and Rome?" },
      {
        role: "assistant",
        content: "",
        reasoning_content: "two cities\n\ncall twice",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "w", arguments: '{"city":"Paris"}' } },
          { id: "c2", type: "function", function: { name: "w", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", content: "18C", tool_call_id: "c1" },
      { role: "tool", content: EMPTY_TOOL_RESULT, tool_call_id: "c2" },
      { role: "assistant", content: "Paris 18 C.", reasoning_content: "both known" },
      { role: "user", content: "thanks" },
    ]);
  });

  it("should keep user and tool-output images as image_url parts", () => {
    const { request } = convertResponsesRequest({
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "see" },
            { type: "input_image", image_url: "https://example.com/a.png", detail: "low" },
          ],
        },
        { type: "function_call", call_id: "c1", name: "shot", arguments: "{}" },
        {
          type: "function_call_output",
          call_id: "c1",
          output: [{ type: "input_image", image_url: "data:image/png;base64,AA==" }],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
        ],
      },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "shot", arguments: "{}" } }],
      },
      {
        role: "tool",
        content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA==" } }],
        tool_call_id: "c1",
      },
    ]);
  });

  it("should map reasoning.effort to enable_thinking", () => {
    const kwargs = (reasoning: unknown) =>
      convertResponsesRequest({ input: "hi", reasoning }).request.chatTemplateKwargs;
    expect(kwargs({ effort: "none" })).toEqual({ enable_thinking: false });
    expect(kwargs({ effort: "minimal" })).toEqual({ enable_thinking: true });
    expect(kwargs({ effort: "xhigh" })).toEqual({ enable_thinking: true });
    expect(kwargs({ summary: "auto" })).toEqual({});
    expect(kwargs(null)).toEqual({});
  });

  it("should project flat function tools and drop the others", () => {
    const { request, warnings } = convertResponsesRequest({
      input: "hi",
      max_output_tokens: 64,
      tools: [
        { type: "function", name: "ping", description: null, parameters: null, strict: true },
        { type: "custom", name: "apply_patch" },
        { type: "local_shell" },
      ],
    });
    expect(request.tools).toEqual([
      { type: "function", function: { name: "ping", parameters: EMPTY_TOOL_PARAMETERS } },
    ]);
    expect(request.maxTokens).toBe(64);
    expect(warnings.map((warning) => warning.path)).toEqual(["tools[1]", "tools[2]"]);
  });
});
