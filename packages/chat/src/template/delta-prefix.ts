import { ChatTemplateError } from "../errors/chat-template-error";
import { ObservationDeltaError } from "../errors/observation-delta-error";
import type { ChatMessage } from "../messages/chat-message";
import type { ChatTemplateKwargs, FunctionTool } from "../messages/function-tool";
import type { TextTokenizer } from "../tokenizer/text-tokenizer";
import { type FastDeltaWriter, fastDeltaWriterFor } from "./fast-observation-delta";
import { splitTurnClose, TURN_CLOSE_PROBE, type TurnClose } from "./turn-close";

/**
 * The fixed prefix observation deltas are diffed against (see docs/contract.md#token-in-token-out).
 * Never part of any output: only the tokens after it are kept.
 */
export const DUMMY_PREFIX_MESSAGES: readonly ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "I am a user." },
];

/**
 * Renders messages with one renderer's template (chosen by `tools`), special tokens and tool-argument
 * mode: the text, not encoded. `kwargs` are already merged over the renderer's defaults.
 */
export type TemplateRender = (
  messages: readonly ChatMessage[],
  tools: readonly FunctionTool[],
  kwargs: ChatTemplateKwargs,
  addGenerationPrompt: boolean,
) => string;

/** What observation deltas of one (template, tools, kwargs) are cut against. */
export interface PrefixInfo {
  /** The merged template kwargs. */
  kwargs: ChatTemplateKwargs;
  /** The dummy prefix's render without generation prompt, trailing newlines stripped. */
  dummyText: string;
  /** `encode(dummyText)`. */
  dummyIds: number[];
  /** True when the dummy's last id is a boundary (added or special) token. */
  dummyEndsAtBoundary: boolean;
  turnClose: TurnClose;
  /**
   * The Jinja-free delta writer of this template, when one is verified for its source and this
   * tokenizer cuts at the dummy prefix's end (its last id is an added token).
   */
  fastDelta: FastDeltaWriter | undefined;
}

/** Options of {@link buildPrefixInfo}. */
export interface BuildPrefixInfoOptions {
  render: TemplateRender;
  tokenizer: TextTokenizer;
  /** The ids a cut may sit next to (added tokens, else special tokens). */
  boundaryIds: ReadonlySet<number>;
  tools: FunctionTool[];
  /** Merged template kwargs. */
  kwargs: ChatTemplateKwargs;
  /** The template source `render` uses for `tools` (the fast-delta writer is looked up by it). */
  template: string;
  /** Whether a verified fast-delta writer may be used. */
  fastDeltas: boolean;
}

/**
 * Renders the dummy prefix for (tools, kwargs) and learns the template's turn close by rendering
 * `dummy ++ [assistant PROBE]`; the newlines stripped from the dummy must be exactly those after an
 * assistant turn's end.
 *
 * @throws ObservationDeltaError `unstable_turn_close` when the probe's content is not rendered verbatim
 *   or the two trailing texts differ; `render_failed` when the template raises.
 */
export function buildPrefixInfo({
  render,
  tokenizer,
  boundaryIds,
  tools,
  kwargs,
  template,
  fastDeltas,
}: BuildPrefixInfoOptions): PrefixInfo {
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
  return {
    kwargs,
    dummyText,
    dummyIds,
    dummyEndsAtBoundary,
    turnClose,
    fastDelta: fastDeltas && dummyEndsAtBoundary ? fastDeltaWriterFor(template) : undefined,
  };
}

/** Options of {@link templateDelta}. */
export interface TemplateDeltaOptions {
  info: PrefixInfo;
  messages: readonly ChatMessage[];
  tools: readonly FunctionTool[];
  render: TemplateRender;
  tokenizer: TextTokenizer;
  boundaryIds: ReadonlySet<number>;
}

/**
 * The template's own delta for `messages`, checked: render dummy ++ messages with the generation
 * prompt; the dummy text must be its text prefix and the dummy ids its token prefix, and the cut must
 * sit next to a boundary token. Returns the ids after the dummy's and their text.
 *
 * @throws ObservationDeltaError `text_not_prefix`, `tokens_not_prefix`, `not_special_boundary`, or
 *   `render_failed` when the template raises.
 */
export function templateDelta({
  info,
  messages,
  tools,
  render,
  tokenizer,
  boundaryIds,
}: TemplateDeltaOptions): { templateIds: number[]; text: string } {
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
  return { templateIds, text: full.slice(info.dummyText.length) };
}

/**
 * Runs a render for a delta; a template failure (`raise_exception`) means the template cannot give
 * this delta.
 *
 * @throws ObservationDeltaError `render_failed` wrapping the template's error; any other error as is.
 */
export function guard(renderFn: () => string): string {
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
