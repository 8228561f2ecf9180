import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** Options of {@link EncodePool}. */
export interface EncodePoolOptions {
  /** The Hugging Face tokenizer directory the gateway loaded (each worker loads the same files). */
  tokenizerDir: string;
  /** Worker threads. @default 1 */
  size?: number;
}

interface Task {
  text: string;
  resolve: (ids: Int32Array) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<number>;
  task: Task | undefined;
  nextId: number;
}

// The worker: loads the tokenizer through @relax/chat's built entry (the same code as the gateway's own
// tokenizer), reports the byte length of its longest token, then encodes texts one at a time.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { loadTokenizer } = await import(workerData.chatEntry);
  const tokenizer = await loadTokenizer(workerData.tokenizerDir);
  let maxTokenBytes = 0;
  for (let id = 0; id < tokenizer.vocabSize; id++) {
    const bytes = Buffer.byteLength(tokenizer.decode([id], { skipSpecialTokens: false }));
    if (bytes > maxTokenBytes) maxTokenBytes = bytes;
  }
  parentPort.on("message", ({ id, text }) => {
    try {
      const ids = Int32Array.from(tokenizer.encode(text));
      parentPort.postMessage({ id, ids }, [ids.buffer]);
    } catch (error) {
      parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  parentPort.postMessage({ ready: true, maxTokenBytes });
})().catch((error) => parentPort.postMessage({ fatal: error instanceof Error ? error.message : String(error) }));
`;

/** The file URL of `@relax/chat`'s built ESM entry (workers cannot load the TypeScript sources). */
function chatEntryUrl(): string {
  const require = createRequire(import.meta.url);
  return pathToFileURL(join(dirname(require.resolve("@relax/chat/package.json")), "dist/index.js")).href;
}

/**
 * A small pool of worker threads that tokenise texts with the gateway's tokenizer, so a large or
 * pathological input (a 5 MiB unbroken word costs minutes of BPE) never runs on the event loop. Tasks
 * queue first in, first out; aborting a running task terminates its worker (BPE cannot be interrupted)
 * and starts a fresh one, so an attacker who disconnects stops costing CPU.
 */
export class EncodePool {
  readonly #slots: Slot[] = [];
  readonly #queue: Task[] = [];
  readonly #workerData: { chatEntry: string; tokenizerDir: string };
  #closed = false;
  /**
   * The UTF-8 byte length of the tokenizer's longest token text (decoded with special tokens), once the
   * first worker has scanned the vocabulary: an upper bound of the bytes one token stands for.
   */
  readonly maxTokenBytes: Promise<number>;

  constructor({ tokenizerDir, size = 1 }: EncodePoolOptions) {
    this.#workerData = { chatEntry: chatEntryUrl(), tokenizerDir };
    for (let i = 0; i < Math.max(1, size); i++) this.#slots.push(this.#spawn());
    this.maxTokenBytes = this.#slots[0]!.ready;
    // A pool nobody uses must not report an unhandled rejection.
    this.maxTokenBytes.catch(() => undefined);
  }

  /**
   * Token ids of `text`, computed in a worker.
   * @throws the signal's reason when aborted; Error when the worker failed to load or encode.
   */
  encode(text: string, signal?: AbortSignal): Promise<Int32Array> {
    if (this.#closed) return Promise.reject(new Error("the encode pool is closed"));
    signal?.throwIfAborted();
    return new Promise<Int32Array>((resolve, reject) => {
      const task: Task = { text, resolve, reject, signal, onAbort: () => this.#abort(task) };
      signal?.addEventListener("abort", task.onAbort, { once: true });
      this.#queue.push(task);
      this.#pump();
    });
  }

  /** Tasks waiting or running. */
  get pending(): number {
    return this.#queue.length + this.#slots.filter((slot) => slot.task !== undefined).length;
  }

  /** Terminates every worker; pending tasks reject. */
  async close(): Promise<void> {
    this.#closed = true;
    const error = new Error("the encode pool is closed");
    for (const task of this.#queue.splice(0)) this.#settle(task, () => task.reject(error));
    await Promise.all(
      this.#slots.map(async (slot) => {
        const task = slot.task;
        slot.task = undefined;
        if (task) this.#settle(task, () => task.reject(error));
        await slot.worker.terminate();
      }),
    );
  }

  #spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.#workerData });
    worker.unref();
    const slot: Slot = { worker, ready: undefined as unknown as Promise<number>, task: undefined, nextId: 0 };
    slot.ready = new Promise<number>((resolve, reject) => {
      worker.on("message", (message: { ready?: boolean; maxTokenBytes?: number; fatal?: string }) => {
        if (message.ready) resolve(message.maxTokenBytes ?? 0);
        else if (message.fatal !== undefined)
          reject(new Error(`encode worker failed to start: ${message.fatal}`));
      });
      worker.once("error", reject);
    });
    slot.ready.then(
      () => this.#pump(),
      () => undefined,
    );
    worker.on("message", (message: { id?: number; ids?: Int32Array; error?: string }) => {
      if (message.id === undefined) return;
      const task = slot.task;
      if (task === undefined || message.id !== slot.nextId) return;
      slot.task = undefined;
      if (message.ids !== undefined) this.#settle(task, () => task.resolve(message.ids!));
      else this.#settle(task, () => task.reject(new Error(`tokenisation failed: ${message.error}`)));
      this.#pump();
    });
    worker.on("error", (error) => this.#replace(slot, error));
    worker.on("exit", () => {
      if (!this.#closed) this.#replace(slot, new Error("the encode worker exited"));
    });
    return slot;
  }

  /** Fails a slot's running task (if any) and puts a fresh worker in its place. */
  #replace(slot: Slot, error: unknown): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0 || this.#closed) return;
    const task = slot.task;
    slot.task = undefined;
    if (task) this.#settle(task, () => task.reject(error));
    void slot.worker.terminate();
    this.#slots[index] = this.#spawn();
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return;
      if (slot.task !== undefined) continue;
      // Only a worker that reported ready takes work (a starting one queues nothing).
      void slot.ready.then(
        () => {
          if (slot.task !== undefined || this.#closed || !this.#slots.includes(slot)) return;
          const task = this.#queue.shift();
          if (task === undefined) return;
          slot.task = task;
          slot.nextId++;
          slot.worker.postMessage({ id: slot.nextId, text: task.text });
        },
        () => {
          const task = this.#queue.shift();
          if (task) this.#settle(task, () => slot.ready.catch(task.reject));
        },
      );
    }
  }

  #abort(task: Task): void {
    const queued = this.#queue.indexOf(task);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      this.#settle(task, () => task.reject(task.signal?.reason));
      return;
    }
    const slot = this.#slots.find((candidate) => candidate.task === task);
    if (slot === undefined) return;
    slot.task = undefined;
    this.#settle(task, () => task.reject(task.signal?.reason));
    this.#replace(slot, task.signal?.reason);
  }

  #settle(task: Task, settle: () => void): void {
    task.signal?.removeEventListener("abort", task.onAbort);
    settle();
  }
}
