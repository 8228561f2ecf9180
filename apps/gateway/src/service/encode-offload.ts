import { availableParallelism } from "node:os";
import type { TextTokenizer } from "@relax/chat";
import type { EncodePool } from "./encode-pool";

/** Thrown (never escapes {@link EncodeOffload.run}) when a text must be tokenised off the event loop. */
class DeferredEncode {
  constructor(readonly text: string) {}
}

/** When a text is tokenised in a worker instead of on the event loop; see {@link needsOffload}. */
export interface OffloadThresholds {
  /** Texts of at least this many UTF-16 code units. @default 16384 */
  minChars: number;
  /**
   * The pre-token length guard: a text of at least {@link minGuardChars} with a run of this many
   * characters without whitespace (one pre-token, whose BPE cost grows much faster than its length).
   * @default 256
   */
  maxRunChars: number;
  /** Shortest text the run guard looks at. @default 1024 */
  minGuardChars: number;
}

const DEFAULT_THRESHOLDS: OffloadThresholds = { minChars: 16_384, maxRunChars: 256, minGuardChars: 1024 };

/**
 * Whether `text` is tokenised in a worker: long enough to cost the event loop tens of milliseconds, or
 * holding one long unbroken run (a pathological pre-token). One pass over the char codes, no allocation.
 */
export function needsOffload(text: string, thresholds: OffloadThresholds = DEFAULT_THRESHOLDS): boolean {
  if (text.length >= thresholds.minChars) return true;
  if (text.length < thresholds.minGuardChars) return false;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // space, \t, \n, \v, \f, \r: where every common pre-tokenizer splits
    if (code === 32 || (code >= 9 && code <= 13)) run = 0;
    else if (++run >= thresholds.maxRunChars) return true;
  }
  return false;
}

/** Options of {@link createEncodeOffload}. */
export interface EncodeOffloadOptions<T extends TextTokenizer = TextTokenizer> {
  /** The gateway's tokenizer (used on the event loop for small texts, and for everything else it offers). */
  tokenizer: T;
  pool: EncodePool;
  thresholds?: Partial<OffloadThresholds>;
}

/** See {@link createEncodeOffload}. */
export interface EncodeOffload<T extends TextTokenizer = TextTokenizer> {
  /** The tokenizer to build the renderer with: `encode` defers large texts while inside {@link run}. */
  readonly tokenizer: T;
  readonly pool: EncodePool;
  /**
   * Runs the synchronous `fn` (a `forest.beginTurn`) so that every large text it tokenises through
   * {@link tokenizer} is encoded in the pool first: `fn` is run, the first large uncached text stops it
   * (before it commits anything: rendering and tokenising come before the forest's commit), `check` may
   * refuse the text (e.g. when its size alone exceeds the context), the pool encodes it, and `fn` runs
   * again, now finding those ids. Texts below the thresholds are encoded in place as before.
   *
   * @throws whatever `fn` or `check` throws; the signal's reason when aborted while a text is encoded.
   */
  run<T>(
    fn: () => T,
    options: { signal?: AbortSignal; check?: (text: string) => void | Promise<void> },
  ): Promise<T>;
  close(): Promise<void>;
}

/** Most large texts one `run` encodes before it gives up deferring and encodes in place. */
const MAX_DEFERRALS = 8;

/**
 * Moves the tokenisation of large inputs off the event loop without changing any token: the renderer is
 * built on {@link EncodeOffload.tokenizer}, whose `encode` returns the ids a worker computed for exactly
 * that text (the same tokenizer files and code), so the event loop of a shard keeps answering other
 * sessions while one request tokenises megabytes.
 */
export function createEncodeOffload({
  tokenizer,
  pool,
  thresholds = {},
}: EncodeOffloadOptions): EncodeOffload {
  const limits = { ...DEFAULT_THRESHOLDS, ...thresholds };
  let active: { cache: Map<string, Int32Array>; deferrals: number } | undefined;
  const encode = (text: string): number[] => {
    const scope = active;
    if (scope !== undefined && needsOffload(text, limits)) {
      const ids = scope.cache.get(text);
      if (ids !== undefined) return Array.from(ids);
      if (scope.deferrals < MAX_DEFERRALS) throw new DeferredEncode(text);
    }
    return tokenizer.encode(text);
  };
  const wrapped = new Proxy(tokenizer, {
    get(target, property) {
      if (property === "encode") return encode;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });

  return {
    tokenizer: wrapped,
    pool,
    async run(fn, { signal, check }) {
      const scope = { cache: new Map<string, Int32Array>(), deferrals: 0 };
      for (;;) {
        let deferred: DeferredEncode;
        active = scope;
        try {
          return fn();
        } catch (error) {
          if (!(error instanceof DeferredEncode)) throw error;
          deferred = error;
        } finally {
          active = undefined;
        }
        scope.deferrals++;
        await check?.(deferred.text);
        scope.cache.set(deferred.text, await pool.encode(deferred.text, signal));
      }
    },
    close: () => pool.close(),
  };
}

/** Worker threads of a gateway's encode pool: the cores but one (the event loop's), 1 to 4. */
export function encodeWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}
