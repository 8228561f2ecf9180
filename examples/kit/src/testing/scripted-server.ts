import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the scripted server received, with its JSON body parsed (`undefined` when not JSON). */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/agentic_api/chat/completions`. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** One scripted reply: a JSON body, or a ready-made SSE stream (`text/event-stream`). */
export type ScriptedReply = { status?: number; json: unknown } | { status?: number; sse: string };

/** A running scripted server. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Options of {@link startScriptedServer}. */
export interface ScriptedServerOptions {
  /**
   * Replies in order, one per request; or a function choosing the reply for request `index`.
   * A request past the end of the list gets a 500 with an OpenAI-shaped error body.
   */
  replies:
    | readonly ScriptedReply[]
    | ((request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);
}

/**
 * Starts a tiny OpenAI/Anthropic-compatible HTTP server on 127.0.0.1 that answers with fixed replies
 * and records what it was sent. For tests of example agents run as real child processes.
 * @example
 * const server = await startScriptedServer({ replies: [{ json: chatCompletion({ content: "hi" }) }] });
 * // … run the agent with RELAX_BASE_URL = `${server.origin}/agentic_api/` …
 * await server.close();
 */
export async function startScriptedServer({ replies }: ScriptedServerOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: String(error), type: "server_error" } }));
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = {
      method: request.method ?? "",
      path: request.url ?? "",
      headers: request.headers,
      body,
    };
    const index = requests.length;
    requests.push(recorded);
    const reply = typeof replies === "function" ? await replies(recorded, index) : replies[index];
    if (reply === undefined) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: { message: `no scripted reply for request ${index}`, type: "server_error" },
        }),
      );
      return;
    }
    if ("sse" in reply) {
      response.writeHead(reply.status ?? 200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
      });
      response.end(reply.sse);
      return;
    }
    response.writeHead(reply.status ?? 200, { "content-type": "application/json" });
    response.end(JSON.stringify(reply.json));
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
