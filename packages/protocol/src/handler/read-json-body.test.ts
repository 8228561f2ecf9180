import { describe, expect, it } from "vitest";
import { LARGE_BODY_BYTES, readJsonBody } from "./read-json-body";
import { DEFAULT_REQUEST_LIMITS } from "./scan-request-limits";

/** A POST whose body arrives in `chunks`, declaring its length. */
function chunkedRequest(chunks: Uint8Array[]): Request {
  const length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Request("http://gateway/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(length) },
    body,
    duplex: "half",
  } as RequestInit);
}

const options = {
  maxBytes: 32 * 1024 * 1024,
  maxDepth: 128,
  protocol: "chat-completions" as const,
  limits: DEFAULT_REQUEST_LIMITS,
};

describe("readJsonBody, large bodies (read chunk by chunk)", () => {
  it("should decode characters split between chunks and strip the BOM, as one decode of the whole would", async () => {
    const content = `${"é€😀 ".repeat(200_000)}end`;
    const bytes = new TextEncoder().encode(
      `\ufeff${JSON.stringify({ messages: [{ role: "user", content }] })}`,
    );
    expect(bytes.byteLength).toBeGreaterThan(LARGE_BODY_BYTES);
    // Cut every 1,001 bytes: most cuts fall inside a 2-, 3- or 4-byte character.
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.byteLength; at += 1_001) chunks.push(bytes.subarray(at, at + 1_001));
    const body = (await readJsonBody(chunkedRequest(chunks), options)) as { messages: { content: string }[] };
    expect(body.messages[0]!.content).toBe(content);
  });

  it("should refuse a large body over a limit with the scan's error", async () => {
    const messages = Array.from({ length: 60_000 }, (_, i) => ({ role: "user", content: `m${i}` }));
    const bytes = new TextEncoder().encode(JSON.stringify({ messages, pad: "x".repeat(LARGE_BODY_BYTES) }));
    await expect(
      readJsonBody(chunkedRequest([bytes.subarray(0, 7), bytes.subarray(7)]), options),
    ).rejects.toThrow(
      "messages[10000]: a request holds at most 10000 messages (--max-request-messages raises it)",
    );
  });

  it("should refuse at the chunk where a limit is crossed, then read the rest undecoded (the connection stays usable)", async () => {
    const messages = Array.from({ length: 20_000 }, (_, i) => ({ role: "user", content: `m${i}` }));
    const head = new TextEncoder().encode(JSON.stringify({ messages }).slice(0, -2));
    // Past the limit comes 2 MiB of bytes that are not even UTF-8 text: never decoded, only read.
    const tail = new Uint8Array(2 * 1024 * 1024).fill(0xff);
    const chunks = [
      head,
      ...Array.from({ length: 32 }, (_, i) => tail.subarray(i * 65_536, (i + 1) * 65_536)),
    ];
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled === chunks.length) controller.close();
        else controller.enqueue(chunks[pulled++]!);
      },
    });
    const length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
    const request = new Request("http://gateway/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(length) },
      body,
      duplex: "half",
    } as RequestInit);
    await expect(readJsonBody(request, options)).rejects.toThrow(
      "messages[10000]: a request holds at most 10000 messages (--max-request-messages raises it)",
    );
    expect(pulled).toBe(chunks.length);
  });
});
