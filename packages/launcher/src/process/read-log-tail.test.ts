import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers";
import { decodeUtf8Window, readLogTail } from "./read-log-tail";

describe("decodeUtf8Window", () => {
  const text = "a€b😀c"; // 1 + 3 + 1 + 4 + 1 bytes
  const bytes = Buffer.from(text);

  it("should drop a character split at the start of the window", () => {
    expect(decodeUtf8Window(bytes.subarray(2))).toBe("b😀c"); // starts inside €
    expect(decodeUtf8Window(bytes.subarray(6))).toBe("c"); // starts inside 😀
  });

  it("should drop a character split at the end of the window", () => {
    expect(decodeUtf8Window(bytes.subarray(0, 3), { atFileStart: true })).toBe("a");
    expect(decodeUtf8Window(bytes.subarray(0, 7), { atFileStart: true })).toBe("a€b");
    expect(decodeUtf8Window(bytes.subarray(0, 9), { atFileStart: true })).toBe("a€b😀");
  });

  it("should keep complete windows and replace invalid bytes elsewhere", () => {
    expect(decodeUtf8Window(bytes, { atFileStart: true })).toBe(text);
    expect(decodeUtf8Window(Buffer.from([0x61, 0xff, 0x62]), { atFileStart: true })).toBe("a\uFFFDb");
  });
});

describe("readLogTail", () => {
  it("should read the last bytes of a file without splitting characters", async () => {
    const dir = await tempDir("tail");
    const path = join(dir, "log");
    await writeFile(path, "x".repeat(10) + "€".repeat(5)); // 10 + 15 bytes
    expect(await readLogTail(path, 8)).toBe("€€"); // window of 8 starts 2 bytes into a €
    expect(await readLogTail(path, 100)).toBe("x".repeat(10) + "€".repeat(5));
    expect(await readLogTail(join(dir, "missing"))).toBe("");
  });
});
