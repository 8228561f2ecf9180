/**
 * Headers of every buffered-SSE reply: `text/event-stream`, `Cache-Control: no-cache`,
 * `X-Accel-Buffering: no` so nginx-style proxies do not hold the heartbeat frames back (see
 * docs/contract.md#buffered-sse).
 */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
});
