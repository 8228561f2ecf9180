import { Agent, type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { EngineConnectionOptions } from "./sglang-http";

/** The engine's answer to one `POST /generate`: status, `Retry-After` header and the body as text. */
export interface GenerateReply {
  status: number;
  retryAfter: string | undefined;
  text: string;
}

/** One `/generate` on the wire: resolves with the reply; `cancel` drops the connection (rejects). */
export interface GenerateExchange {
  reply: Promise<GenerateReply>;
  cancel: () => void;
}

/**
 * The lean transport of non-streamed `POST /generate` (the hot path of every turn): `node:http` on a
 * pooled keep-alive agent, the body written as the bytes given, the reply collected as one buffer and
 * decoded once. No `fetch`/WHATWG streams, no per-call `AbortController` or `AbortSignal`: cancelling is
 * `request.destroy()`. Control calls keep using ky (retries, timeouts).
 *
 * Idle connections are closed by the client after `keepAliveTimeoutMs` (default 2 s), or earlier when the
 * server's `Keep-Alive: timeout=<s>` hint minus one second is shorter (Node's agent follows the hint), so
 * a request is never written on a connection the server is closing (`/generate` is never retried).
 */
export class EngineGenerateTransport {
  readonly #http: Agent;
  readonly #https: HttpsAgent;
  readonly #headers: Record<string, string>;

  constructor(options: { connections?: EngineConnectionOptions; headers?: Record<string, string> }) {
    const keepAlive = options.connections?.keepAliveTimeoutMs ?? 2_000;
    const agentOptions = {
      keepAlive: true,
      // The agent's socket timeout: for a free socket, its idle time before the agent closes it; on a
      // socket in use it only emits `timeout` on the request, which nothing listens to (our own timer
      // bounds a call).
      timeout: keepAlive,
      scheduling: "lifo" as const,
      ...(options.connections?.connectionsPerOrigin !== undefined
        ? { maxSockets: options.connections.connectionsPerOrigin }
        : {}),
    };
    this.#http = new Agent(agentOptions);
    this.#https = new HttpsAgent(agentOptions);
    this.#headers = options.headers ?? {};
  }

  /**
   * Sends `body` (JSON bytes) to `${baseUrl}/generate` with `headers` (on top of the client's own).
   * The promise rejects with the transport's error (`ECONNREFUSED`, `ECONNRESET`, ...) on failure and
   * after `cancel()`.
   */
  send(baseUrl: string, body: Uint8Array, headers: Record<string, string>): GenerateExchange {
    const url = new URL(`${baseUrl}/generate`);
    const secure = url.protocol === "https:";
    let request: ClientRequest | undefined;
    const reply = new Promise<GenerateReply>((resolve, reject) => {
      request = (secure ? httpsRequest : httpRequest)(
        {
          agent: secure ? this.#https : this.#http,
          hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method: "POST",
          headers: { ...this.#headers, ...headers, "content-length": String(body.byteLength) },
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", reject);
          response.on("aborted", () => reject(new Error("engine closed the response early")));
          response.on("end", () => {
            const retryAfter = response.headers["retry-after"];
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
              text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8"),
            });
          });
        },
      );
      request.on("error", reject);
      request.end(body);
    });
    return { reply, cancel: () => request?.destroy(new Error("request cancelled")) };
  }

  /** Closes every pooled connection (idle ones at once). */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
