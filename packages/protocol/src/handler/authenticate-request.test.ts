import { describe, expect, it } from "vitest";
import { ProtocolError } from "../errors/protocol-error";
import { createConversationHistory } from "../shared/conversation-history";
import { authenticateRequest } from "./authenticate-request";

const request = (headers: Record<string, string>) =>
  new Request("http://relax.test/v1/messages", { headers });

describe("authenticateRequest", () => {
  it("should refuse a missing credential with 401 authentication_error", async () => {
    const error = await authenticateRequest(request({}), {}).catch((e: unknown) => e);
    expect(ProtocolError.isInstance(error)).toBe(true);
    expect([(error as ProtocolError).status, (error as ProtocolError).code]).toEqual([
      401,
      "authentication_error",
    ]);
  });

  it("should refuse a session authenticate rejects with 404 session_discarded", async () => {
    const error = (await authenticateRequest(request({ "x-api-key": "s-9" }), {
      authenticate: (id) => id === "s-1",
    }).catch((e: unknown) => e)) as ProtocolError;
    expect([error.status, error.type, error.code, error.message]).toEqual([
      404,
      "not_found_error",
      "session_discarded",
      "session not found or already closed",
    ]);
  });

  it("should give the session id and its history", async () => {
    const history = createConversationHistory();
    const auth = await authenticateRequest(request({ authorization: "Bearer s-1" }), {
      authenticate: async () => true,
      history: (id) => (id === "s-1" ? history : undefined),
    });
    expect(auth).toEqual({ sessionId: "s-1", history });
  });
});
