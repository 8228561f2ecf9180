import { ProtocolError } from "../errors/protocol-error";
import type { ConversationHistory } from "../shared/conversation-history";
import type { HandlerSettings } from "./handler-options";
import { readCredential } from "./read-credential";

/** Who sent a model request: the session id of its credential, and that session's committed replies. */
export interface AuthenticatedRequest {
  sessionId: string;
  /** `settings.history` of the session, when the server keeps one. */
  history: ConversationHistory | undefined;
}

/**
 * Checks a request's credential before a byte of its body is read, so an unknown caller cannot make the
 * server buffer or parse anything.
 *
 * @throws ProtocolError 401 `authentication_error` for a missing or malformed credential; 404
 *   `session_discarded` when `settings.authenticate` refuses the session id (and whatever
 *   `authenticate` itself throws).
 */
export async function authenticateRequest(
  httpRequest: Request,
  settings: Pick<HandlerSettings, "authenticate" | "history">,
): Promise<AuthenticatedRequest> {
  const credential = readCredential(httpRequest.headers);
  if ("problem" in credential) {
    throw new ProtocolError({ code: "authentication_error", message: credential.problem });
  }
  const { sessionId } = credential;
  if (settings.authenticate !== undefined && !(await settings.authenticate(sessionId))) {
    throw new ProtocolError({ code: "session_discarded", message: "session not found or already closed" });
  }
  return { sessionId, history: settings.history?.(sessionId) };
}
