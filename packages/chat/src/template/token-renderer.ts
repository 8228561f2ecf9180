import type { MediaItem } from "../media/media-item";
import type { ChatMessage } from "../messages/chat-message";
import type { ChatTemplateKwargs, ConversationState, FunctionTool } from "../messages/function-tool";

/**
 * Turns canonical conversation states into the exact token ids the model sees. This is the interface
 * `@relax/forest` takes by injection; `createChatRenderer` in this package implements it with a real
 * tokenizer and chat template.
 */
export interface TokenRenderer {
  /**
   * Token ids of a first observation: the template's render of `messages` (with `tools` and
   * `chatTemplateKwargs`) including the generation prompt, tokenized without added specials.
   */
  renderPrompt(state: ConversationState): number[];
  /**
   * Token ids appended after a committed response when new messages arrive. Never re-renders history:
   * the delta is the difference of two renders of a fixed dummy prefix. It starts with the turn-closing
   * suffix the model did not generate (Qwen: `\n` after a generated `<|im_end|>`; the whole
   * `<|im_end|>\n` when `previousResponseIds` does not end with it) and ends with the generation prompt.
   *
   * @throws ObservationDeltaError when the template cannot give a stable delta.
   */
  renderObservationDelta(input: {
    messages: ChatMessage[];
    tools: FunctionTool[];
    chatTemplateKwargs: ChatTemplateKwargs;
    /** The token ids of the response this observation follows (only its tail is inspected). */
    previousResponseIds?: ArrayLike<number>;
  }): number[];
  /**
   * Multimodal renderers only: the training view of an observation whose messages carry images. Given
   * the inference ids just rendered for `messages` (one image placeholder per image, as SGLang takes
   * them), returns the processor-expanded training ids and one {@link MediaItem} per image, in order;
   * `undefined` when the messages hold no image. Text-only renderers leave it out.
   *
   * @throws MediaInputError when the placeholders in `ids` and the images in `messages` disagree, or an
   *   image was not resolved.
   */
  expandMedia?(input: {
    ids: readonly number[];
    messages: readonly ChatMessage[];
  }): MediaExpansion | undefined;
}

/** The training view of one multimodal observation (see {@link TokenRenderer.expandMedia}). */
export interface MediaExpansion {
  /** Training ids: the inference ids with each image placeholder repeated `media[i].tokens` times. */
  trainIds: number[];
  /** The observation's images, in prompt order. */
  media: MediaItem[];
}
