export { ChatTemplateError, type ChatTemplateFailure } from "../errors/chat-template-error";
export { ObservationDeltaError, type ObservationDeltaFailure } from "../errors/observation-delta-error";
export { type CompiledChatTemplate, compileChatTemplate } from "./compile-chat-template";
export {
  type ChatRenderer,
  type ChatRendererOptions,
  createChatRenderer,
  DUMMY_PREFIX_MESSAGES,
  type ObservationDelta,
  type ObservationDeltaInput,
  type RendererTokenizer,
} from "./create-chat-renderer";
export { detectContentFormat, type TemplateContentFormat } from "./detect-content-format";
export { DEFAULT_THINK_TAGS, promptEndsInOpenThink, type ThinkTags } from "./prompt-ends-in-open-think";
export {
  type RenderChatTemplateOptions,
  renderChatTemplate,
  TEMPLATE_MANAGED_VARIABLES,
} from "./render-chat-template";
export type { TemplateMessage, ToolArgumentsMode } from "./to-template-messages";
export { toTemplateMessages } from "./to-template-messages";
export { TURN_CLOSE_PROBE, type TurnClose } from "./turn-close";
