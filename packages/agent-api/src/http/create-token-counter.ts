import type { CanonicalRequest, TokenRenderer } from "@relax/chat";
import { mergeTemplateKwargs } from "@relax/chat/internal";

/**
 * The prompt token count of a request as the model would see it on its first turn: the chat template
 * render of its messages and tools (with the run's `--apply-chat-template-kwargs` under the request's own)
 * and the generation prompt, encoded. Answers `POST /v1/messages/count_tokens` (`{input_tokens}`).
 *
 * @throws ChatTemplateError when the template cannot render the request (a 400/500 by the error table).
 */
export function createTokenCounter(
  renderer: TokenRenderer,
  defaultTemplateKwargs: Record<string, unknown>,
): (request: CanonicalRequest) => number {
  return (request) =>
    renderer.renderPrompt({
      messages: request.messages,
      tools: request.tools,
      chatTemplateKwargs: mergeTemplateKwargs(defaultTemplateKwargs, request.chatTemplateKwargs),
    }).length;
}
