import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { AssistantTurn } from "@relax/chat";
import type { EventSourceMessage } from "eventsource-parser";
import fc from "fast-check";
import { expect, it } from "vitest";
import { callHandler } from "./call-handler";
import { readSse } from "./read-sse";

const relaxErrorMarker: unique symbol = Symbol.for("relax.error") as never;
const contextLengthMarker: unique symbol = Symbol.for("relax.error.ContextLengthError") as never;

/** Stands in for `@relax/sglang`'s `ContextLengthError`: same global marker, same fields. */
export class StandInContextLengthError extends Error {
  readonly [relaxErrorMarker] = true;
  readonly [contextLengthMarker] = true;
  override readonly name = "ContextLengthError";
  readonly promptTokens = 40_000;
  readonly maxContextLength = 32_768;
  constructor() {
    super("The input (40000 tokens) is longer than the model's context length (32768 tokens).");
  }
}

/** One byte-exact SSE case: a request body and what `generate` does. */
export interface SseCase {
  name: string;
  body: Record<string, unknown>;
  turn?: AssistantTurn;
  error?: unknown;
}

/**
 * Registers, for each case, a byte-for-byte comparison of the whole stream body with
 * `<fixtureDir>/<name>.sse.txt` and (for successful turns) the property that the stream, parsed in
 * arbitrary byte chunks and folded by `accumulate`, equals the non-streaming JSON reply.
 * `UPDATE_SSE_FIXTURES=1` rewrites the fixture files instead of comparing (review the diff!).
 */
export function registerSseFixtureCases({
  path,
  fixtureDir,
  cases,
  accumulate,
}: {
  path: string;
  fixtureDir: URL;
  cases: SseCase[];
  accumulate: (events: EventSourceMessage[]) => unknown;
}): void {
  it.each(cases)("should write the $name stream byte for byte", async ({ name, body, turn, error }) => {
    const { status, headers, text } = await callHandler({
      path,
      body: { ...body, stream: true },
      turn,
      error,
    });
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const file = new URL(`${name}.sse.txt`, fixtureDir);
    if (process.env.UPDATE_SSE_FIXTURES === "1") {
      mkdirSync(dirname(file.pathname), { recursive: true });
      writeFileSync(file, text);
    }
    expect(existsSync(file)).toBe(true);
    expect(text).toBe(readFileSync(file, "utf8"));
  });

  it.each(cases.filter((c) => c.turn !== undefined))(
    "should fold the $name stream, split anywhere, into the JSON reply",
    async ({ body, turn }) => {
      const json = JSON.parse((await callHandler({ path, body: { ...body, stream: false }, turn })).text);
      const bytes = new TextEncoder().encode(
        (await callHandler({ path, body: { ...body, stream: true }, turn })).text,
      );
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), (splits) => {
          const { events } = readSse(bytes, splits);
          expect(accumulate(events)).toEqual(json);
        }),
        { numRuns: 100 },
      );
    },
  );
}
