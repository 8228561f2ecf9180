import { EventSourceParserStream } from "eventsource-parser/stream";

/** One parsed server-sent event. */
export interface SseEvent {
  event?: string;
  id?: string;
  data: string;
}

/** Reads a whole stream into an array. */
export async function readableStreamToArray<T>(stream: ReadableStream<T>): Promise<T[]> {
  const items: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return items;
    items.push(value);
  }
}

/**
 * Parses a whole SSE body the way clients do (with `eventsource-parser`): from a `Response`, a byte or
 * text stream, or a string. Comments and retry fields are skipped.
 *
 * @example
 * const events = await collectSse(await fetch(`${url}/generate`, { method: "POST", body }));
 * events.at(-1)?.data; // "[DONE]"
 */
export async function collectSse(
  source: Response | ReadableStream<Uint8Array> | ReadableStream<string> | string,
): Promise<SseEvent[]> {
  let text: ReadableStream<string>;
  if (typeof source === "string") {
    text = new ReadableStream<string>({
      start(controller) {
        controller.enqueue(source);
        controller.close();
      },
    });
  } else {
    const stream = source instanceof Response ? source.body : source;
    if (!stream) return [];
    const decoder = new TextDecoder();
    text = (stream as ReadableStream<Uint8Array | string>).pipeThrough(
      new TransformStream<Uint8Array | string, string>({
        transform(chunk, controller) {
          controller.enqueue(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
        },
        flush(controller) {
          const rest = decoder.decode();
          if (rest) controller.enqueue(rest);
        },
      }),
    );
  }
  const events = await readableStreamToArray(text.pipeThrough(new EventSourceParserStream()));
  return events.map((event) => {
    const out: SseEvent = { data: event.data };
    if (event.event !== undefined) out.event = event.event;
    if (event.id !== undefined) out.id = event.id;
    return out;
  });
}
