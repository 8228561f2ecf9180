import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSse } from "../../test/support/read-sse";
import { formatSseComment, formatSseEvents, formatSseFrame } from "./format-sse-frame";

describe("formatSseFrame", () => {
  it("should write event, id and one data line per line, then a blank line", () => {
    expect(formatSseFrame({ event: "message_stop", id: "7", data: "a\nb\r\nc\rd" })).toBe(
      "event: message_stop\nid: 7\ndata: a\ndata: b\ndata: c\ndata: d\n\n",
    );
    expect(formatSseFrame({ data: "[DONE]" })).toBe("data: [DONE]\n\n");
    expect(formatSseFrame({ data: "" })).toBe("data: \n\n");
  });

  it("should reject CR or LF in event and id", () => {
    expect(() => formatSseFrame({ event: "a\nb", data: "x" })).toThrow("SSE event must not contain CR or LF");
    expect(() => formatSseFrame({ id: "1\r", data: "x" })).toThrow("SSE id must not contain CR or LF");
    expect(() => formatSseComment("a\nb")).toThrow("SSE comment must not contain CR or LF");
  });

  it("should write comments and sequences", () => {
    expect(formatSseComment("heartbeat")).toBe(": heartbeat\n\n");
    expect(formatSseEvents([{ data: "1" }, { event: "e", data: "2" }])).toBe(
      "data: 1\n\nevent: e\ndata: 2\n\n",
    );
  });

  it("should round-trip through eventsource-parser: parse(format(x)) = x", () => {
    const line = fc.string({ unit: "grapheme" }).filter((s) => !/[\r\n]/.test(s));
    const frame = fc.record(
      {
        event: line.filter((s) => s.length > 0),
        id: line.filter((s) => !s.includes("\u0000")),
        data: fc.string({ unit: "grapheme" }),
      },
      { requiredKeys: ["data"] },
    );
    fc.assert(
      fc.property(
        fc.array(frame, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (frames, splits) => {
          const bytes = new TextEncoder().encode(formatSseEvents(frames));
          const { events } = readSse(
            bytes,
            splits.map((split) => split % Math.max(bytes.length, 1)),
          );
          expect(events.map((e) => ({ event: e.event, data: e.data }))).toEqual(
            frames.map((f) => ({ event: f.event, data: f.data.replace(/\r\n|\r/g, "\n") })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
