import { readFileSync } from "node:fs";
import { stableStringify } from "@relax/chat/internal";
import { describe, expect, it } from "vitest";
import {
  type ConvertedRequest,
  convertAnthropicMessagesRequest,
  convertChatCompletionsRequest,
  convertResponsesRequest,
} from "../src/index";

function fixture(name: string): unknown {
  return JSON.parse(
    readFileSync(new URL(`./__fixtures__/weather-conversation/${name}.json`, import.meta.url), "utf8"),
  );
}

const canonical = fixture("canonical") as Record<string, unknown>;
const converted: Record<string, ConvertedRequest> = {
  "chat-completions": convertChatCompletionsRequest(fixture("chat-completions")),
  responses: convertResponsesRequest(fixture("responses")),
  "anthropic-messages": convertAnthropicMessagesRequest(fixture("anthropic-messages")),
};

describe("the same conversation through three protocols", () => {
  it.each(Object.keys(converted))("should project the %s body to the golden canonical state", (protocol) => {
    const { request } = converted[protocol]!;
    expect({
      messages: request.messages,
      tools: request.tools,
      chatTemplateKwargs: request.chatTemplateKwargs,
    }).toEqual(canonical);
    expect(request).toMatchObject({ maxTokens: 512, stream: true, model: "qwen3-8b" });
  });

  it("should give byte-identical canonical triples (the state hash input)", () => {
    const triples = Object.values(converted).map(({ request }) =>
      stableStringify({
        messages: request.messages,
        tools: request.tools,
        template_kwargs: request.chatTemplateKwargs,
      }),
    );
    expect(new Set(triples).size).toBe(1);
    expect(triples[0]).toBe(
      stableStringify({
        messages: canonical.messages,
        tools: canonical.tools,
        template_kwargs: canonical.chatTemplateKwargs,
      }),
    );
  });

  it("should report each protocol's ignored fields and dropped tools", () => {
    expect(converted["chat-completions"]!.warnings.map((warning) => warning.path)).toEqual([
      "temperature",
      "top_p",
      "stream_options",
    ]);
    expect(converted.responses!.warnings.map((warning) => [warning.type, warning.path])).toEqual([
      ["ignored-field", "store"],
      ["ignored-field", "include"],
      ["ignored-field", "parallel_tool_calls"],
      ["ignored-field", "tool_choice"],
      ["ignored-field", "prompt_cache_key"],
      ["dropped-tool", "tools[1]"],
    ]);
    expect(converted["anthropic-messages"]!.warnings).toEqual([
      {
        type: "ignored-field",
        path: "temperature",
        message: "temperature is ignored: sampling parameters come from the rollout configuration",
      },
      {
        type: "ignored-field",
        path: "metadata",
        message: "metadata is ignored: not supported by Relax; the field does not change generation",
      },
      {
        type: "dropped-tool",
        path: "tools[1]",
        message:
          'tools[1] is dropped: only client tools (type absent or "custom") are supported (type "web_search_20250305")',
      },
    ]);
  });
});
