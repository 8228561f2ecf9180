import { describe, expect, it } from "vitest";
import { formatSseData } from "../src/standin-http";
import { collectSse, readableStreamToArray } from "../src/testing/index";

function byteStream(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

describe("collectSse", () => {
  it("should parse SGLang frames from a string", async () => {
    const text = formatSseData('{"text":"a"}') + formatSseData("[DONE]");
    expect(text).toBe('data: {"text":"a"}\n\ndata: [DONE]\n\n');
    expect(await collectSse(text)).toEqual([{ data: '{"text":"a"}' }, { data: "[DONE]" }]);
  });

  it("should survive byte splits inside a UTF-8 character and between CR and LF", async () => {
    const bytes = new TextEncoder().encode(
      'event: x\r\ndata: {"text":"héllo 你好"}\r\n\r\ndata: [DONE]\r\n\r\n',
    );
    for (let cut = 1; cut < bytes.length; cut++) {
      const events = await collectSse(byteStream([bytes.slice(0, cut), bytes.slice(cut)]));
      expect(events).toEqual([{ event: "x", data: '{"text":"héllo 你好"}' }, { data: "[DONE]" }]);
    }
  });

  it("should read a Response and collect streams into arrays", async () => {
    const response = new Response(formatSseData("1") + formatSseData("2"));
    expect((await collectSse(response)).map((event) => event.data)).toEqual(["1", "2"]);
    expect(await readableStreamToArray(byteStream([new Uint8Array([1]), new Uint8Array([2])]))).toEqual([
      new Uint8Array([1]),
      new Uint8Array([2]),
    ]);
  });
});
