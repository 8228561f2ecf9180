import type { IncomingMessage, ServerResponse } from "node:http";
import { formatFieldPath } from "@relax/chat";

/** Headers of SGLang's `/generate` event stream. */
export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
} as const;

/** Formats one SSE `data:` frame the way SGLang writes it (`data: <json>\n\n`). */
export function formatSseData(data: string): string {
  return `data: ${data}\n\n`;
}

/** A request problem answered with `status` and SGLang's `{"error":{"message"}}` body. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Answers `body` as JSON with a content length. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

/** SGLang's error body for a `ValueError` (`{"error":{"message":...}}`). */
export function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: { message } });
}

/** Reads a whole request body as UTF-8. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Request headers with lower-cased names; repeated headers joined with `, `. */
export function lowerHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** Validates a control body with a zod schema; a failure is a 400 naming the field. */
export function parseOrThrow<T>(
  schema: {
    safeParse(
      value: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  body: unknown,
): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HttpProblem(400, `${formatFieldPath(issue.path) || "body"}: ${issue.message}`);
  }
  return parsed.data;
}
