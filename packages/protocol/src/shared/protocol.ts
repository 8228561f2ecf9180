import type { CanonicalRequest } from "@relax/chat";

/** The wire protocols Relax serves. Each has its own folder with the same set of files. */
export type Protocol = "chat-completions" | "responses" | "anthropic-messages";

/**
 * Something in a request that was accepted but does not change generation: a field that is ignored
 * (sampling parameters come from the rollout configuration), a non-function tool that was dropped, or a
 * content block that carries nothing the model sees.
 */
export interface ProtocolWarning {
  type: "ignored-field" | "dropped-tool" | "dropped-content";
  /** Field path in the protocol's terms, e.g. `temperature`, `tools[2]`, `messages[1].content[0]`. */
  path: string;
  message: string;
}

/** What every `convert-<protocol>-request` returns: the canonical request and the warnings it produced. */
export interface ConvertedRequest {
  request: CanonicalRequest;
  warnings: ProtocolWarning[];
}
