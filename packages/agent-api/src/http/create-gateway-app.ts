import type { AssistantTurn, CanonicalRequest } from "@relax/chat";
import {
  createProtocolHandler,
  DEFAULT_REFUSAL_BACKOFF,
  type GenerateContext,
  type HarnessNormalizers,
  ProtocolError,
  type ProtocolHandlerOptions,
  type RequestEndEvent,
  type RequestLimits,
  STATUS_TABLE,
  toErrorResponse,
} from "@relax/protocol";
import { Hono } from "hono";
import type { SessionRegistry } from "../session/session-registry";
import { tokensEqual } from "./tokens-equal";

/** Options of {@link createGatewayApp}. */
export interface GatewayAppOptions {
  registry: SessionRegistry;
  generate: (context: GenerateContext) => Promise<AssistantTurn>;
  /** Base path of the agent-facing API. @default "/agentic_api" */
  basePath?: string;
  /** Model id listed by `/v1/models` and echoed when a request names none. @default "relax" */
  modelName?: string;
  /** Buffered-SSE heartbeat interval in ms. @default 15000 */
  heartbeatMs?: number;
  /** Largest request body in bytes (`--max-request-bytes`); larger → 413. @default 33554432 (32 MiB) */
  maxRequestBytes?: number;
  /** Deepest JSON nesting of a body (`--max-json-depth`); deeper → 400. @default 128 */
  maxJsonDepth?: number;
  /** Per-request work bounds checked before the body is parsed (`--max-request-messages`, …); over one → 400. @default DEFAULT_REQUEST_LIMITS */
  requestLimits?: Partial<RequestLimits>;
  /**
   * Longest wait of the backoff on a session's refused bodies, in ms (`--refusal-backoff-max-ms`; see
   * `RefusalBackoff` in @relax/protocol); `0` turns it off. @default 500
   */
  refusalBackoffMaxMs?: number;
  /** Extra fields for `/health` (backend, run progress). */
  health?: () => Record<string, unknown>;
  onWarning?: ProtocolHandlerOptions["onWarning"];
  onRequestEnd?: ProtocolHandlerOptions["onRequestEnd"];
  /**
   * Called for every non-2xx answer to an agent (after it is recorded as the session's
   * `lastRefusal`), with the session's Group label when the session is known: for WARN logs and metrics.
   */
  onRefusal?: (event: RequestEndEvent & { message: string; group?: string }) => void;
  /** Harness normalisers switched off (`--disable-normalizer`); unset ones are on. */
  normalizers?: Partial<HarnessNormalizers>;
  /** Prompt token count of a request under the chat template, for `/v1/messages/count_tokens`. */
  countTokens?: (request: CanonicalRequest) => number;
  /**
   * The trainer's control token (`relax serve`): presented as a session credential it is refused with
   * 401 `authentication_error` in the agent protocol's format (compared in constant time).
   */
  controlToken?: string;
  /**
   * Set on a sharded gateway's controller port, which serves no session: every session credential is
   * answered 404 `session_discarded` with this message (saying where agents go) instead of the usual one.
   */
  sessionsElsewhere?: string;
}

/**
 * The gateway HTTP app (Hono): the three model protocols under `basePath` (with and without `/v1`), the
 * session id as the credential (unknown or finished sessions get 404 `session_discarded`), plus
 * `GET /health` (and `/healthz`, also under `basePath`) with live session counts.
 *
 * Hono because its handlers take and return Web-standard `Request`/`Response`, so the protocol handler of
 * `@relax/protocol` mounts without an adapter, and `app.request()` tests it in process; Fastify would
 * need a Request/Response bridge for the same handler.
 */
export function createGatewayApp(options: GatewayAppOptions): Hono {
  const { registry, basePath = "/agentic_api", modelName = "relax", heartbeatMs = 15_000 } = options;
  const handler = createProtocolHandler({
    generate: options.generate,
    authenticate: (sessionId) => {
      if (options.controlToken !== undefined && tokensEqual(sessionId, options.controlToken)) {
        throw new ProtocolError({
          code: "authentication_error",
          message: "the control token is not a session credential",
        });
      }
      if (options.sessionsElsewhere !== undefined) {
        throw new ProtocolError({ code: "session_discarded", message: options.sessionsElsewhere });
      }
      return registry.get(sessionId) !== undefined;
    },
    heartbeatMs,
    ...(options.maxRequestBytes !== undefined ? { maxRequestBytes: options.maxRequestBytes } : {}),
    ...(options.maxJsonDepth !== undefined ? { maxJsonDepth: options.maxJsonDepth } : {}),
    ...(options.requestLimits !== undefined ? { requestLimits: options.requestLimits } : {}),
    ...(options.refusalBackoffMaxMs !== undefined
      ? {
          refusalBackoff:
            options.refusalBackoffMaxMs === 0
              ? (false as const)
              : {
                  maxMs: options.refusalBackoffMaxMs,
                  initialMs: Math.min(DEFAULT_REFUSAL_BACKOFF.initialMs, options.refusalBackoffMaxMs),
                },
        }
      : {}),
    basePath,
    defaultModel: modelName,
    models: () => [{ id: modelName, ownedBy: "relax" }],
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    onRequestEnd: (event) => {
      if (event.status >= 400 && event.status !== STATUS_TABLE.client_disconnect.status) {
        const session = event.sessionId !== undefined ? registry.get(event.sessionId) : undefined;
        const message = event.message ?? `HTTP ${event.status}`;
        if (session !== undefined) session.lastRefusal = { status: event.status, path: event.path, message };
        // The event's sessionId is the presented credential: only the session's label leaves here.
        const { sessionId: _credential, ...rest } = event;
        options.onRefusal?.({
          ...rest,
          message,
          ...(session !== undefined ? { sessionId: session.id, group: session.groupId } : {}),
        });
      }
      options.onRequestEnd?.(event);
    },
    history: (sessionId) => registry.get(sessionId)?.history,
    ...(options.normalizers !== undefined ? { normalizers: options.normalizers } : {}),
    ...(options.countTokens !== undefined ? { countTokens: options.countTokens } : {}),
  });
  const app = new Hono();
  const health = (c: { json: (body: unknown) => Response }) =>
    c.json({ status: "ok", ...registry.snapshot(), ...options.health?.() });
  for (const prefix of ["", basePath]) {
    app.get(`${prefix}/health`, health);
    app.get(`${prefix}/healthz`, health);
  }
  // `RELAX_BASE_URL` ends with "/", so a hand-written agent joining it with "/chat/completions" sends
  // "//chat/completions": collapse repeated slashes before routing.
  app.all(`${basePath}/*`, (c) => handler(normalizeSlashes(c.req.raw)));
  app.all(basePath, (c) => handler(c.req.raw));
  app.all(`${basePath}//*`, (c) => handler(normalizeSlashes(c.req.raw)));
  // Unknown routes answer in the OpenAI error format, through the same renderer as every other error:
  // the status of `not_found`, with `code: null` (the released wire answer outside the base path).
  app.notFound((c) => {
    const message = `no route for ${c.req.method} ${c.req.path}`;
    const error = new ProtocolError({ status: STATUS_TABLE.not_found.status, code: null, message });
    options.onRefusal?.({
      protocol: "chat-completions",
      stream: false,
      status: error.status,
      path: c.req.path,
      message,
    });
    return toErrorResponse(error, "chat-completions");
  });
  return app;
}

function normalizeSlashes(request: Request): Request {
  const url = new URL(request.url);
  if (!url.pathname.includes("//")) return request;
  url.pathname = url.pathname.replace(/\/{2,}/g, "/");
  return new Request(url, request);
}
