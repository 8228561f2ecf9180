import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface CannedCall {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
  /** The body's bytes as UTF-8 text, as sent. */
  text: string;
}

export type CannedHandler = (call: CannedCall, response: ServerResponse) => void;

/** A local node:http server whose answers the test scripts; records every call. */
export async function startCannedServer(handler: CannedHandler) {
  const calls: CannedCall[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const call: CannedCall = {
      method: request.method ?? "GET",
      path: request.url ?? "/",
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
      text,
    };
    calls.push(call);
    handler(call, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    url,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** A finished SGLang reply for `ids` with logprob -0.5 each. */
export function reply(rid: string, ids: number[], finish: unknown = { type: "stop", matched: ids.at(-1) }) {
  return {
    text: "",
    output_ids: ids,
    meta_info: {
      id: rid,
      finish_reason: finish,
      prompt_tokens: 3,
      completion_tokens: ids.length,
      cached_tokens: 0,
      weight_version: "default",
      output_token_logprobs: ids.map((id) => [-0.5, id, null]),
      e2e_latency: 0.01,
    },
  };
}
