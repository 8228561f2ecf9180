import { type FileHandle, open } from "node:fs/promises";
import type { Readable } from "node:stream";

/** Default `--agent-log-max-bytes`: 4 MiB per session log (head and tail kept). */
export const DEFAULT_AGENT_LOG_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Writes an agent's stdout+stderr to its log file with a size cap: the first half of `maxBytes` is
 * written as it arrives; after that only the most recent half is kept in memory and written at
 * {@link CappedLog.close}, after a line saying how many bytes were cut. The file is created 0600 (the
 * launcher's, never the agent's).
 */
export class CappedLog {
  readonly #file: FileHandle;
  readonly #headMax: number;
  readonly #tailMax: number;
  #headWritten = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #cut = 0;
  #writes: Promise<unknown> = Promise.resolve();
  readonly #maxBytes: number;

  private constructor(file: FileHandle, maxBytes: number) {
    this.#file = file;
    this.#maxBytes = maxBytes;
    this.#headMax = Math.floor(maxBytes / 2);
    this.#tailMax = maxBytes - this.#headMax;
  }

  /**
   * Opens (appends to, or creates with mode 0600) `path`.
   * @param maxBytes cap in bytes (> 0).
   */
  static async open(path: string, maxBytes: number): Promise<CappedLog> {
    return new CappedLog(await open(path, "a", 0o600), maxBytes);
  }

  /** Bytes dropped so far (between head and tail). */
  get cutBytes(): number {
    return this.#cut;
  }

  /** Accepts one chunk of output. */
  write(chunk: Buffer): void {
    let rest = chunk;
    if (this.#headWritten < this.#headMax) {
      const head = rest.subarray(0, this.#headMax - this.#headWritten);
      this.#headWritten += head.length;
      const copy = Buffer.from(head);
      this.#writes = this.#writes.then(() => this.#file.write(copy)).catch(() => {});
      rest = rest.subarray(head.length);
    }
    if (rest.length === 0) return;
    this.#tail.push(Buffer.from(rest));
    this.#tailBytes += rest.length;
    while (this.#tailBytes > this.#tailMax) {
      const first = this.#tail[0]!;
      const excess = this.#tailBytes - this.#tailMax;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailBytes -= first.length;
        this.#cut += first.length;
      } else {
        this.#tail[0] = first.subarray(excess);
        this.#tailBytes -= excess;
        this.#cut += excess;
      }
    }
  }

  /** Pipes a stream into the log; resolves when it ended (or failed). */
  drain(stream: Readable | null | undefined): Promise<void> {
    if (stream == null) return Promise.resolve();
    return new Promise((resolve) => {
      stream.on("data", (chunk: Buffer) => this.write(chunk));
      stream.once("end", () => resolve());
      stream.once("close", () => resolve());
      stream.once("error", () => resolve());
    });
  }

  /** Writes the note on the cut (if any) and the tail, then closes the file. Idempotent. */
  async close(): Promise<void> {
    const tail = Buffer.concat(this.#tail);
    this.#tail = [];
    const note =
      this.#cut > 0
        ? Buffer.from(
            `\n[relax: ${this.#cut} bytes of agent output cut here (--agent-log-max-bytes ${this.#maxBytes})]\n`,
          )
        : Buffer.alloc(0);
    this.#cut = 0;
    const file = this.#file;
    const writes = this.#writes.then(async () => {
      if (note.length > 0) await file.write(note);
      if (tail.length > 0) await file.write(tail);
    });
    this.#writes = writes.catch(() => {});
    await this.#writes;
    await file.close().catch(() => {});
  }
}
