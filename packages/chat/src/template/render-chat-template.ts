import { Environment, Interpreter } from "@huggingface/jinja";
import { ChatTemplateError } from "../errors/chat-template-error";
import type { ChatMessage } from "../messages/chat-message";
import type { ChatTemplateKwargs, FunctionTool } from "../messages/function-tool";
import { compileChatTemplate } from "./compile-chat-template";
import { TemplateRaisedError, templateGlobals } from "./template-globals";
import { type ToolArgumentsMode, toTemplateMessages } from "./to-template-messages";

/** Template variables set by the renderer itself; `chatTemplateKwargs` may not override them. */
export const TEMPLATE_MANAGED_VARIABLES: readonly string[] = ["messages", "tools", "add_generation_prompt"];

/** Options of {@link renderChatTemplate}. */
export interface RenderChatTemplateOptions {
  /** The Jinja chat template source (e.g. `tokenizer.chatTemplate`). */
  template: string;
  /** Canonical messages; at least one. */
  messages: readonly ChatMessage[];
  /** Function tools; an empty list is passed as `tools = none` (no tools), as SGLang does. @default [] */
  tools?: readonly FunctionTool[];
  /** Append the assistant header (`<|im_start|>assistant\n`, …). @default false (HF default) */
  addGenerationPrompt?: boolean;
  /** Extra template variables spread into the context (e.g. `{ enable_thinking: false }`). @default {} */
  chatTemplateKwargs?: ChatTemplateKwargs;
  /**
   * `bos_token`, `eos_token`, `pad_token`, `unk_token` (HF `special_tokens_map`, e.g.
   * `tokenizer.templateSpecialTokens`); kwargs of the same name win, as in transformers.
   * @default {}
   */
  specialTokens?: Readonly<Record<string, string>>;
  /** How tool-call arguments reach the template. @default "object" */
  toolArguments?: ToolArgumentsMode;
  /** The clock for `strftime_now` (templates that print today's date). @default () => new Date() */
  now?: () => Date;
}

/**
 * Renders a conversation with a chat template, following transformers' `apply_chat_template(...,
 * tokenize=False)` (5.18): context = special tokens, then `chatTemplateKwargs`, then `messages`, `tools`,
 * `add_generation_prompt`; `raise_exception(msg)` aborts; `strftime_now` is available; Jinja runs with
 * `trim_blocks` and `lstrip_blocks`. Tool-call arguments are handed over parsed (see
 * {@link ToolArgumentsMode}); content part lists are joined for text-only templates and passed as parts to
 * templates that loop over `message.content`.
 *
 * @returns the rendered text (not tokenized).
 * @throws ChatTemplateError: `parse` (bad template), `raise_exception` (the template's message),
 *   `render` (any other failure, including a non-string value concatenated into the text, where Python
 *   Jinja raises a TypeError), `invalid_input` (empty `messages`, a reserved kwarg, bad arguments).
 * @example
 * ```ts
 * const text = renderChatTemplate({ template: tokenizer.chatTemplate!, messages, addGenerationPrompt: true,
 *   chatTemplateKwargs: { enable_thinking: false }, specialTokens: tokenizer.templateSpecialTokens });
 * ```
 */
export function renderChatTemplate({
  template,
  messages,
  tools = [],
  addGenerationPrompt = false,
  chatTemplateKwargs = {},
  specialTokens = {},
  toolArguments = "object",
  now = () => new Date(),
}: RenderChatTemplateOptions): string {
  if (messages.length === 0) {
    throw new ChatTemplateError({
      reason: "invalid_input",
      path: "messages",
      message: "cannot apply a chat template to an empty conversation",
    });
  }
  for (const key of TEMPLATE_MANAGED_VARIABLES) {
    if (Object.hasOwn(chatTemplateKwargs, key)) {
      throw new ChatTemplateError({
        reason: "invalid_input",
        path: `chatTemplateKwargs.${key}`,
        message: "is set by the renderer and may not be passed as a template kwarg",
      });
    }
  }
  const compiled = compileChatTemplate(template);
  const context: Record<string, unknown> = {
    ...specialTokens,
    ...chatTemplateKwargs,
    messages: toTemplateMessages(messages, { format: compiled.contentFormat, toolArguments }),
    tools: tools.length > 0 ? tools : null,
    add_generation_prompt: addGenerationPrompt,
  };
  let text: string;
  try {
    // Own environment instead of Template.render: context variables may shadow globals (as in Python
    // Jinja), and raise_exception must be told apart from other failures.
    const environment = new Environment();
    for (const [name, value] of Object.entries(templateGlobals(now))) {
      if (!Object.hasOwn(context, name)) environment.set(name, value);
    }
    for (const [name, value] of Object.entries(context)) environment.set(name, value);
    text = new Interpreter(environment).run(compiled.template.parsed).value as string;
  } catch (error) {
    if (error instanceof TemplateRaisedError) {
      throw new ChatTemplateError({ reason: "raise_exception", message: error.message, cause: error });
    }
    throw new ChatTemplateError({
      reason: "render",
      message: `chat template failed to render: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  if (
    text.includes("[object Map]") &&
    !JSON.stringify({ messages, tools, chatTemplateKwargs }).includes("[object Map]")
  ) {
    throw new ChatTemplateError({
      reason: "render",
      message:
        "the template concatenated an object into the text (Python Jinja would raise a TypeError); if it " +
        'concatenates tool-call arguments as a string, render with toolArguments: "string"',
    });
  }
  return text;
}
