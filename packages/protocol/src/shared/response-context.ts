import type { AssistantMessage } from "@relax/chat";

/** Values a reply needs besides the generation result: ids, model name and clock. */
export interface ResponseContext {
  /** Id of the reply object (`chatcmpl_…`, `resp_…`, `msg_…`). */
  id: string;
  /** The request's `model`, echoed back. */
  model: string;
  /** Creation time in Unix seconds. */
  created: number;
  /** Makes ids for the reply's parts (`rs`, `msg`, `fc`, `sig`). */
  createId: (prefix: string) => string;
}

/** The text of a generated assistant message (text parts joined; generated turns carry no media). */
export function assistantText(message: AssistantMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
