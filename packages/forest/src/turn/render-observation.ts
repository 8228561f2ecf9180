import type { ChatMessage, ChatTemplateKwargs, FunctionTool, MediaItem, TokenRenderer } from "@relax/chat";
import type { InternalResponse, InternalRoot } from "../node/forest-node";
import { toTokenArray } from "./validate-response";

/** A new observation's tokens, as {@link renderObservation} renders them. */
export interface RenderedObservation {
  /** Inference ids: the full prompt under the root, or the observation delta after a response. */
  tokens: Int32Array;
  /** Training ids (images expanded), when the renderer expanded media. */
  trainTokens?: Int32Array;
  /** The observation's images, when the renderer expanded media (may be empty). */
  media?: MediaItem[];
}

/** Options of {@link renderObservation}. */
export interface RenderObservationOptions {
  /** The node the observation will hang under. */
  parent: InternalRoot | InternalResponse;
  /** The observation's messages. */
  messages: ChatMessage[];
  tools: FunctionTool[];
  chatTemplateKwargs: ChatTemplateKwargs;
}

/**
 * Renders a new observation: with the full template under the root (`renderPrompt`), else as an
 * observation delta after the parent response's tokens (`renderObservationDelta`); then, with a
 * multimodal renderer, its training view (`expandMedia` of the inference ids).
 *
 * @throws ForestInputError when the renderer returns something that is not token ids (path `renderer
 *   output[i]` or `renderer media expansion[i]`).
 * @throws whatever the renderer throws (e.g. `ObservationDeltaError`).
 */
export function renderObservation(
  renderer: TokenRenderer,
  { parent, messages, tools, chatTemplateKwargs }: RenderObservationOptions,
): RenderedObservation {
  const rendered =
    parent.kind === "root"
      ? renderer.renderPrompt({ messages, tools, chatTemplateKwargs })
      : renderer.renderObservationDelta({
          messages,
          tools,
          chatTemplateKwargs,
          previousResponseIds: parent.tokens,
        });
  const observation: RenderedObservation = { tokens: toTokenArray(rendered, "renderer output") };
  const expansion = renderer.expandMedia?.({ ids: rendered, messages });
  if (expansion !== undefined) {
    observation.trainTokens = toTokenArray(expansion.trainIds, "renderer media expansion");
    observation.media = expansion.media;
  }
  return observation;
}
