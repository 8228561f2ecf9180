import type { Protocol } from "../shared/protocol";

/** What a request path addresses. */
export type Route =
  | { kind: "generate"; protocol: Protocol }
  | { kind: "models" }
  /** The base URL itself (`/`, `/v1`): `HEAD`/`GET` answer 200 (Claude Code's preflight). */
  | { kind: "root" }
  /** `/messages/count_tokens`: the prompt's token count under the chat template. */
  | { kind: "count-tokens" }
  /** `/responses/compact`: a compaction turn (see docs/contract.md#responses). */
  | { kind: "compact" };

const ROUTES: Readonly<Record<string, Route>> = {
  "": { kind: "root" },
  "/chat/completions": { kind: "generate", protocol: "chat-completions" },
  "/responses": { kind: "generate", protocol: "responses" },
  "/responses/compact": { kind: "compact" },
  "/messages": { kind: "generate", protocol: "anthropic-messages" },
  "/messages/count_tokens": { kind: "count-tokens" },
  "/models": { kind: "models" },
};

/**
 * Matches a path (query string already removed) against the Relax routes, with and without `/v1`,
 * below an optional `basePath` (e.g. `/agentic_api`). A trailing slash is tolerated.
 *
 * @returns the route, or `undefined` for any other path.
 */
export function matchRoute(pathname: string, basePath = ""): Route | undefined {
  const base = basePath.replace(/\/+$/, "");
  if (base !== "" && pathname !== base && !pathname.startsWith(`${base}/`)) return undefined;
  let path = pathname.slice(base.length).replace(/\/+$/, "");
  if (path.startsWith("/v1/") || path === "/v1") path = path.slice(3);
  return Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
}

/** The protocol whose error format suits a path, even one that matched no route. */
export function guessProtocol(pathname: string): Protocol {
  if (/\/messages(\/count_tokens)?\/?$/.test(pathname)) return "anthropic-messages";
  if (/\/responses(\/compact)?\/?$/.test(pathname)) return "responses";
  return "chat-completions";
}
