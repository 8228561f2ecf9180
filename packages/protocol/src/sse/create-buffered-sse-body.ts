import { HEARTBEAT, withHeartbeat } from "./with-heartbeat";

/**
 * The body of a buffered-SSE reply (see docs/contract.md#buffered-sse): `connectedFrame` at once, then
 * `heartbeatFrame` after each `heartbeatMs` of quiet while `terminal` is pending, then the terminal
 * text in one chunk, then the end of the stream. When the reader cancels (the client went away),
 * `onCancel` runs and the heartbeat stops.
 *
 * @param terminal - resolves to the complete terminal sequence; it must render its own errors (a
 *   rejection closes the stream without a terminal sequence).
 */
export function createBufferedSseBody({
  connectedFrame,
  heartbeatFrame,
  heartbeatMs,
  terminal,
  onCancel,
}: {
  connectedFrame: string;
  heartbeatFrame: string;
  heartbeatMs: number;
  terminal: Promise<string>;
  onCancel?: () => void;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const source = (async function* () {
    yield await terminal;
  })();
  const frames = withHeartbeat(source, heartbeatMs);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(connectedFrame));
    },
    async pull(controller) {
      const next = await frames.next();
      if (next.done) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(next.value === HEARTBEAT ? heartbeatFrame : next.value));
    },
    cancel() {
      onCancel?.();
      void frames.return(undefined).catch(() => {});
    },
  });
}
