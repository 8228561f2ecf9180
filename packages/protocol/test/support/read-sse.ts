import { createParser, type EventSourceMessage } from "eventsource-parser";

/**
 * Parses SSE bytes as a client does (eventsource-parser behind a streaming UTF-8 decoder), feeding them
 * in the chunks given by `splits` (byte offsets), so a split can fall inside a UTF-8 character.
 */
export function readSse(
  bytes: Uint8Array,
  splits: readonly number[] = [],
): {
  events: EventSourceMessage[];
  comments: string[];
} {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (event) => events.push(event),
    onComment: (comment) => comments.push(comment),
  });
  const decoder = new TextDecoder();
  const cuts = [...new Set(splits)].filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b);
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    parser.feed(decoder.decode(bytes.subarray(start, cut), { stream: true }));
    start = cut;
  }
  parser.feed(decoder.decode());
  return { events, comments };
}
