/** One server-sent event. `data` may span lines; `event` and `id` may not. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/**
 * Formats one SSE frame: `event: X\n`, `id: Y\n`, one `data: ` line per line of `data` (split on CRLF,
 * CR or LF, as the WHATWG parser joins them back with `\n`), then a blank line.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 * @throws TypeError when `event` or `id` contains CR or LF (it would split the frame).
 */
export function formatSseFrame({ event, data, id }: SseEvent): string {
  let frame = "";
  if (event !== undefined) {
    assertSingleLine(event, "event");
    frame += `event: ${event}\n`;
  }
  if (id !== undefined) {
    assertSingleLine(id, "id");
    frame += `id: ${id}\n`;
  }
  for (const line of data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** An SSE comment frame (`: text\n\n`), ignored by clients; used for connect and heartbeat frames. */
export function formatSseComment(text: string): string {
  assertSingleLine(text, "comment");
  return `: ${text}\n\n`;
}

/** Formats a sequence of events as one string (a terminal sequence is written in one go). */
export function formatSseEvents(events: readonly SseEvent[]): string {
  let out = "";
  for (const event of events) out += formatSseFrame(event);
  return out;
}

function assertSingleLine(value: string, field: string): void {
  if (/[\r\n]/.test(value)) throw new TypeError(`SSE ${field} must not contain CR or LF`);
}
