/**
 * Reads the session id from the credential headers: `Authorization: Bearer <id>` (OpenAI SDKs, Codex,
 * the Anthropic SDK 1.x) or `x-api-key: <id>` (Claude Code). A well-formed Bearer header wins.
 *
 * @returns `{ sessionId }`, or `{ problem }` describing a missing or malformed credential (→ 401).
 */
export function readCredential(headers: Headers): { sessionId: string } | { problem: string } {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1] !== undefined) return { sessionId: match[1] };
  }
  const apiKey = headers.get("x-api-key")?.trim();
  if (apiKey !== undefined && apiKey !== "") return { sessionId: apiKey };
  if (authorization !== null) {
    return { problem: "malformed Authorization header: expected `Bearer <session id>`" };
  }
  return {
    problem: "missing credential: send `Authorization: Bearer <session id>` or `x-api-key: <session id>`",
  };
}
