import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** Options of {@link EncodePool}. */
export interface EncodePoolOptions {
  /** The Hugging Face tokenizer directory the gateway loaded (each worker loads the same files). */
  tokenizerDir: string;
  /** Worker threads kept running. @default 1 */
  size?: number;
  /**
   * Most worker threads: while tasks wait behind workers all busy for 200 ms or more (one long task must
   * not hold up the next session's render), one more is started, up to this many; extra ones stop after
   * 30 s idle. @default size + 3
   */
  maxSize?: number;
  /** The chat template the gateway's renderer was built with, when not the tokenizer's own. */
  chatTemplate?: string;
  /**
   * The workers' nice value, above the event loop's, so that a huge render never takes the CPU from the
   * threads answering healthy turns. Applied on Linux only, where a thread's nice value is its own
   * (elsewhere the call would renice the whole process). @default 10
   */
  nice?: number;
}

/** Work a pool worker does: tokenise a text, or render (and tokenise) a first prompt or an observation delta. */
export type PoolTask =
  | { kind: "encode"; text: string }
  | {
      kind: "render";
      op: "prompt" | "delta";
      /** The renderer input (`ConversationState`, or `ObservationDeltaInput` for `delta`). */
      input: unknown;
      /** The session's context limit: a render whose size alone exceeds it is not tokenised. */
      maxContextTokens?: number;
      /** {@link EncodePool.maxTokenBytes}, needed with `maxContextTokens` for the size bound. */
      maxTokenBytes?: number;
    };

/** What a worker answers: the ids, or (render) the size bound that refused it, or that it failed. */
export type PoolResult = { ids: Int32Array } | { tooLarge: number } | { failed: string };

interface Task {
  work: PoolTask;
  resolve: (result: PoolResult) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  task: Task | undefined;
  /** When the running task was posted (`performance.now()`). */
  startedAt: number;
  nextId: number;
  /** Stops an idle extra worker (above the base size) after {@link IDLE_EXTRA_MS}. */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

/** A queued task waits this long behind busy workers before a spare worker is started, in ms. */
const SPARE_AFTER_MS = 200;
/** An extra worker (above the base size) idle this long stops, in ms. */
const IDLE_EXTRA_MS = 30_000;

// The worker: loads the tokenizer (and renderer) through @relax/chat's built entries (the same code as the
// gateway's own), reports the byte length of its longest token, then runs tasks one at a time. A render
// whose text alone is at least `maxContextTokens` tokens by the size bound (see refuseBySize in
// create-turn-runner.ts) answers `tooLarge` without tokenising.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
// Below the event loops: on Linux a thread's nice value is its own (setpriority(PRIO_PROCESS, 0) names the
// calling thread), so a huge render here yields the CPU to every gateway thread answering healthy turns.
if (workerData.nice !== undefined) { try { require("node:os").setPriority(workerData.nice); } catch {} }
class TooLarge { constructor(atLeast) { this.atLeast = atLeast; } }
(async () => {
  const chat = await import(workerData.chatEntry);
  const { DUMMY_PREFIX_MESSAGES } = await import(workerData.chatInternalEntry);
  const tokenizer = await chat.loadTokenizer(workerData.tokenizerDir);
  let maxTokenBytes = 0;
  for (let id = 0; workerData.scan && id < tokenizer.vocabSize; id++) {
    const bytes = Buffer.byteLength(tokenizer.decode([id], { skipSpecialTokens: false }));
    if (bytes > maxTokenBytes) maxTokenBytes = bytes;
  }
  let limit;
  const checked = new Proxy(tokenizer, {
    get(target, property) {
      if (property === "encode") {
        return (text) => {
          if (limit !== undefined) {
            const bytes = Buffer.byteLength(text);
            if (Math.ceil(bytes / limit.tokenBytes) >= limit.max) {
              const dummy = Buffer.byteLength(renderer.renderText(
                { messages: [...DUMMY_PREFIX_MESSAGES], tools: limit.tools, chatTemplateKwargs: limit.kwargs },
                { addGenerationPrompt: false },
              ));
              const atLeast = Math.ceil(Math.max(0, bytes - dummy) / limit.tokenBytes);
              if (atLeast >= limit.max) throw new TooLarge(atLeast);
            }
          }
          return target.encode(text);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const renderer = chat.createChatRenderer({
    tokenizer: checked,
    ...(workerData.chatTemplate !== undefined ? { chatTemplate: workerData.chatTemplate } : {}),
  });
  parentPort.on("message", ({ id, work }) => {
    try {
      let ids;
      if (work.kind === "encode") ids = tokenizer.encode(work.text);
      else {
        limit = work.maxContextTokens === undefined || work.maxTokenBytes === undefined ? undefined
          : { max: work.maxContextTokens, tokenBytes: work.maxTokenBytes + 1, tools: work.input.tools, kwargs: work.input.chatTemplateKwargs };
        try {
          ids = work.op === "prompt" ? renderer.renderPrompt(work.input) : renderer.renderObservationDelta(work.input);
        } finally {
          limit = undefined;
        }
      }
      const array = new Int32Array(ids);
      parentPort.postMessage({ id, result: { ids: array } }, [array.buffer]);
    } catch (error) {
      if (error instanceof TooLarge) parentPort.postMessage({ id, result: { tooLarge: error.atLeast } });
      else parentPort.postMessage({ id, result: { failed: error instanceof Error ? error.message : String(error) } });
    }
  });
  parentPort.postMessage({ ready: true, maxTokenBytes });
})().catch((error) => parentPort.postMessage({ fatal: error instanceof Error ? error.message : String(error) }));
`;

/** The file URLs of `@relax/chat`'s built ESM entries (workers cannot load the TypeScript sources). */
function chatEntryUrls(): { chatEntry: string; chatInternalEntry: string } {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("@relax/chat/package.json"));
  return {
    chatEntry: pathToFileURL(join(root, "dist/index.js")).href,
    chatInternalEntry: pathToFileURL(join(root, "dist/internal/index.js")).href,
  };
}

/**
 * A small, elastic pool of worker threads that render and tokenise with the gateway's tokenizer, so a
 * large or pathological input (a 5 MiB unbroken word costs minutes of BPE, 10^5 messages seconds of
 * template) never runs on the event loop. Tasks queue first in, first out; when a task has waited
 * 200 ms behind workers that are all busy that long, a spare one is started (up to `maxSize`; it stops
 * after 30 s idle), so one long task never holds up the next session's render for long, while a burst of
 * short renders does not pay for worker start-ups.
 * Aborting a running task terminates its worker (BPE cannot be interrupted), so an attacker who
 * disconnects stops costing CPU.
 */
export class EncodePool {
  readonly #slots: Slot[] = [];
  readonly #queue: Task[] = [];
  readonly #size: number;
  readonly #maxSize: number;
  readonly #workerData: {
    chatEntry: string;
    chatInternalEntry: string;
    tokenizerDir: string;
    chatTemplate: string | undefined;
    /** Applied on Linux only (`undefined` elsewhere): there the call renices one thread. */
    nice: number | undefined;
  };
  #closed = false;
  #scanned = false;
  #spareTimer: ReturnType<typeof setTimeout> | undefined;
  /** The worker scanning the vocabulary for {@link maxTokenBytes}, while it starts. */
  #scanner: Slot | undefined;
  #resolveMaxTokenBytes!: (bytes: number) => void;
  #rejectMaxTokenBytes!: (error: unknown) => void;
  /**
   * The UTF-8 byte length of the tokenizer's longest token text (decoded with special tokens), once the
   * first worker has scanned the vocabulary: an upper bound of the bytes one token stands for.
   */
  readonly maxTokenBytes: Promise<number>;

  constructor({ tokenizerDir, size = 1, maxSize, chatTemplate, nice = 10 }: EncodePoolOptions) {
    this.#workerData = {
      ...chatEntryUrls(),
      tokenizerDir,
      chatTemplate,
      nice: process.platform === "linux" ? nice : undefined,
    };
    this.#size = Math.max(1, size);
    this.#maxSize = Math.max(this.#size, maxSize ?? this.#size + 3);
    this.maxTokenBytes = new Promise<number>((resolve, reject) => {
      this.#resolveMaxTokenBytes = resolve;
      this.#rejectMaxTokenBytes = reject;
    });
    // A pool nobody uses must not report an unhandled rejection.
    this.maxTokenBytes.catch(() => undefined);
    for (let i = 0; i < this.#size; i++) this.#slots.push(this.#spawn());
  }

  /**
   * Token ids of `text`, computed in a worker.
   * @throws the signal's reason when aborted; Error when the worker failed to load or encode.
   */
  async encode(text: string, signal?: AbortSignal): Promise<Int32Array> {
    const result = await this.run({ kind: "encode", text }, signal);
    if ("ids" in result) return result.ids;
    throw new Error(`tokenisation failed: ${"failed" in result ? result.failed : "refused"}`);
  }

  /**
   * Runs one task in a worker.
   * @throws the signal's reason when aborted; Error when the pool is closed or a worker failed to start.
   */
  run(work: PoolTask, signal?: AbortSignal): Promise<PoolResult> {
    if (this.#closed) return Promise.reject(new Error("the encode pool is closed"));
    signal?.throwIfAborted();
    return new Promise<PoolResult>((resolve, reject) => {
      const task: Task = { work, resolve, reject, signal, onAbort: () => this.#abort(task) };
      signal?.addEventListener("abort", task.onAbort, { once: true });
      this.#queue.push(task);
      this.#pump();
    });
  }

  /** Tasks waiting or running. */
  get pending(): number {
    return this.#queue.length + this.#slots.filter((slot) => slot.task !== undefined).length;
  }

  /** Resolves once every worker started so far has loaded its tokenizer (benches wait for it). */
  async ready(): Promise<void> {
    await this.maxTokenBytes;
    while (this.#slots.some((slot) => !slot.ready)) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Worker threads running or starting. */
  get workers(): number {
    return this.#slots.length;
  }

  /** Terminates every worker; pending tasks reject. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#spareTimer !== undefined) clearTimeout(this.#spareTimer);
    const error = new Error("the encode pool is closed");
    this.#rejectMaxTokenBytes(error);
    for (const task of this.#queue.splice(0)) this.#settle(task, () => task.reject(error));
    await Promise.all(
      this.#slots.splice(0).map(async (slot) => {
        const task = slot.task;
        slot.task = undefined;
        if (task) this.#settle(task, () => task.reject(error));
        await slot.worker.terminate();
      }),
    );
  }

  #spawn(): Slot {
    const scan = !this.#scanned && this.#scanner === undefined;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...this.#workerData, scan } });
    worker.unref();
    const slot: Slot = {
      worker,
      ready: false,
      task: undefined,
      startedAt: 0,
      nextId: 0,
      idleTimer: undefined,
    };
    if (scan) this.#scanner = slot;
    worker.on(
      "message",
      (message: {
        ready?: boolean;
        maxTokenBytes?: number;
        fatal?: string;
        id?: number;
        result?: PoolResult;
      }) => {
        if (message.ready) {
          slot.ready = true;
          if (scan && !this.#scanned) {
            this.#scanned = true;
            this.#scanner = undefined;
            this.#resolveMaxTokenBytes(message.maxTokenBytes ?? 0);
          }
          this.#pump();
        } else if (message.fatal !== undefined) {
          this.#fail(slot, new Error(`encode worker failed to start: ${message.fatal}`));
        } else if (message.id !== undefined && message.result !== undefined) {
          const task = slot.task;
          if (task === undefined || message.id !== slot.nextId) return;
          slot.task = undefined;
          const result = message.result;
          this.#settle(task, () => task.resolve(result));
          this.#trim(slot);
          this.#pump();
        }
      },
    );
    worker.on("error", (error) => this.#drop(slot, error));
    worker.on("exit", () => this.#drop(slot, new Error("the encode worker exited")));
    return slot;
  }

  /** A worker that could not start: every queued task fails with its error (the next one may retry). */
  #fail(slot: Slot, error: Error): void {
    // Read before `#remove`, which forgets the scanner: a scanner that cannot start rejects
    // `maxTokenBytes` (and so `ready()`) instead of leaving them pending for ever.
    const wasScanner = this.#scanner === slot;
    this.#remove(slot);
    for (const task of this.#queue.splice(0)) this.#settle(task, () => task.reject(error));
    if (wasScanner) this.#rejectMaxTokenBytes(error);
  }

  /** A worker that died or was terminated: its task (if any) fails, the pool keeps its base size. */
  #drop(slot: Slot, error: unknown): void {
    if (!this.#slots.includes(slot) || this.#closed) return;
    const task = slot.task;
    slot.task = undefined;
    if (task) this.#settle(task, () => task.reject(error));
    this.#remove(slot);
    this.#pump();
  }

  #remove(slot: Slot): void {
    if (this.#scanner === slot) this.#scanner = undefined;
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    const index = this.#slots.indexOf(slot);
    if (index >= 0) this.#slots.splice(index, 1);
    void slot.worker.terminate();
  }

  /** An idle worker above the base size stops after {@link IDLE_EXTRA_MS} without work. */
  #trim(slot: Slot): void {
    if (this.#slots.length <= this.#size || slot.idleTimer !== undefined) return;
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = undefined;
      if (slot.task === undefined && this.#slots.length > this.#size) this.#remove(slot);
    }, IDLE_EXTRA_MS);
    slot.idleTimer.unref();
  }

  #pump(): void {
    if (this.#closed) return;
    while (this.#queue.length > 0) {
      const slot = this.#slots.find((candidate) => candidate.ready && candidate.task === undefined);
      if (slot === undefined) break;
      const task = this.#queue.shift()!;
      if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      slot.task = task;
      slot.startedAt = performance.now();
      slot.nextId++;
      slot.worker.postMessage({ id: slot.nextId, work: task.work });
    }
    // Keep the base size; and when tasks wait behind workers that stay busy (a long task, not a burst
    // of short ones, which would only pay a worker's start-up), start a spare.
    while (this.#slots.length < this.#size) this.#slots.push(this.#spawn());
    if (this.#queue.length > 0 && this.#spareTimer === undefined && this.#slots.length < this.#maxSize) {
      this.#spareTimer = setTimeout(() => {
        this.#spareTimer = undefined;
        if (this.#closed || this.#queue.length === 0 || this.#slots.length >= this.#maxSize) return;
        const starting = this.#slots.some((slot) => !slot.ready);
        const stuck = this.#slots.every(
          (slot) => slot.task !== undefined && performance.now() - slot.startedAt >= SPARE_AFTER_MS,
        );
        if (stuck && !starting) this.#slots.push(this.#spawn());
        this.#pump();
      }, SPARE_AFTER_MS);
      this.#spareTimer.unref();
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
    this.#remove(slot);
    this.#pump();
  }

  #settle(task: Task, settle: () => void): void {
    task.signal?.removeEventListener("abort", task.onAbort);
    settle();
  }
}
