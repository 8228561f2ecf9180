import { availableParallelism } from "node:os";
import type { ChatRenderer, ConversationState, ObservationDeltaInput, TextTokenizer } from "@relax/chat";
import type { EncodePool, PoolResult } from "./encode-pool";

/** Thrown (never escapes {@link EncodeOffload.run}) when a text must be tokenised off the event loop. */
class DeferredEncode {
  constructor(readonly text: string) {}
}

/** Thrown (never escapes {@link EncodeOffload.run}) when a render must run off the event loop. */
class DeferredRender {
  constructor(
    readonly op: "prompt" | "delta",
    readonly input: ConversationState | ObservationDeltaInput,
    readonly key: string,
  ) {}
}

/** When a render (template + tokenisation) runs in a worker: many messages, or much text. */
const HEAVY_MESSAGES = 256;
const HEAVY_CHARS = 16_384;

/**
 * Whether rendering `input` is heavy enough for a worker: {@link HEAVY_MESSAGES} messages or more, or
 * {@link HEAVY_CHARS} characters of strings (keys included) in its messages and tools. An iterative walk
 * that stops at the limit, so a light input costs a few microseconds.
 */
export function isHeavyRender(input: Pick<ConversationState, "messages" | "tools">): boolean {
  return input.messages.length >= HEAVY_MESSAGES || renderChars(input, HEAVY_CHARS) >= HEAVY_CHARS;
}

/** Characters of strings (keys included) in `input`'s messages and tools, counted up to `cap`. */
function renderChars(input: Pick<ConversationState, "messages" | "tools">, cap: number): number {
  let chars = 0;
  const stack: unknown[] = [input.messages, input.tools];
  while (stack.length > 0 && chars < cap) {
    const value = stack.pop();
    if (typeof value === "string") {
      chars += value.length;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        chars += key.length;
        stack.push(item);
      }
    }
  }
  return chars;
}

/**
 * Texts (and renders) up to this many characters are first tried on the event loop through the
 * tokenizer's bounded encode (`encodeWithin`, the pre-token cache): ≈ 0.1 µs per cached token, so a
 * 128k-token prompt of known words costs ≈ 15 ms in place, less than the worker's round trip adds.
 */
const IN_PLACE_MAX_CHARS = 1 << 20;

/**
 * The bound of an in-place encode: characters of pre-tokens not yet cached (each through the library's
 * BPE, ≈ 5 µs per token). Past it the text goes to a worker, so new or pathological words never stall
 * the loop for more than ≈ 10 ms.
 */
const IN_PLACE_MISSED_CHARS = 8_192;

/**
 * The cache key of a render: its full input (the state may change between two tries of one turn). Each
 * message's JSON is computed once per {@link EncodeOffload.run} (`memo`, by message object: a retried
 * `fn` hands the same request messages again), so a 128k-token first prompt is serialised once, not on
 * every try. Parts are joined with U+0000, which JSON never leaves unescaped.
 */
function renderKey(
  op: "prompt" | "delta",
  input: ConversationState | ObservationDeltaInput,
  memo: WeakMap<object, string>,
): string {
  const previous = "previousResponseIds" in input ? input.previousResponseIds : undefined;
  let key = `${op}\u0000${JSON.stringify([
    input.tools,
    input.chatTemplateKwargs,
    previous === undefined ? null : Array.from(previous),
  ])}`;
  for (const message of input.messages) {
    let json = memo.get(message);
    if (json === undefined) {
      json = JSON.stringify(message);
      memo.set(message, json);
    }
    key += `\u0000${json}`;
  }
  return key;
}

/**
 * `ids` as a plain array. A counted loop: `Array.from` of a typed array goes through the iterator
 * protocol, ≈ 10× slower (≈ 5 ms for a 128k-token prompt on this project's machines).
 */
function toIdList(ids: Int32Array): number[] {
  const list = new Array<number>(ids.length);
  for (let i = 0; i < ids.length; i++) list[i] = ids[i] as number;
  return list;
}

/** A render input as plain data for `postMessage` (typed arrays and plain objects survive the copy). */
function plainInput(input: ConversationState | ObservationDeltaInput): unknown {
  return input;
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
   * The renderer to give the forests: `renderPrompt` / `renderObservationDelta` of a heavy input
   * ({@link isHeavyRender}) run in a worker while inside {@link run} (same template, tokenizer and
   * code, so the same ids; a worker failure falls back to rendering in place, which then throws the
   * renderer's own error). Everything else is `renderer`'s.
   */
  wrapRenderer<R extends ChatRenderer>(renderer: R): R;
  /**
   * Runs the synchronous `fn` (a `forest.beginTurn`) so that every large text it tokenises through
   * {@link tokenizer} is encoded in the pool first: `fn` is run, the first large uncached text stops it
   * (before it commits anything: rendering and tokenising come before the forest's commit), `check` may
   * refuse the text (e.g. when its size alone exceeds the context), the pool encodes it, and `fn` runs
   * again, now finding those ids. Texts below the thresholds are encoded in place as before.
   *
   * @throws whatever `fn` or `check` throws; the signal's reason when aborted while a text is encoded.
   */
  run<U>(
    fn: () => U,
    options: {
      signal?: AbortSignal;
      /** Called before a deferred text is encoded; may throw to refuse it. */
      check?: (text: string) => void | Promise<void>;
      /** The session's context limit, for the size bound of a deferred render. */
      maxContextTokens?: number;
      /** Throws the refusal of a deferred render whose size alone proves at least `atLeast` (≥ the limit) tokens. */
      tooLarge?: (atLeast: number) => never;
    },
  ): Promise<U>;
  close(): Promise<void>;
}

/**
 * When the event loop may render and encode a large input itself: the tokenizer bounds its uncached work
 * (`encodeWithin`) and no size bound could refuse the input. Below `maxContextTokens × tokenBytes / 3`
 * characters (a UTF-16 unit is at most 3 UTF-8 bytes; `tokenBytes` is the longest token's bytes + 1,
 * once the pool knows it) the worker path would tokenise too, so doing it here gives the same result.
 */
function createInPlaceEncoder(tokenizer: TextTokenizer, pool: EncodePool) {
  let tokenBytes: number | undefined;
  pool.maxTokenBytes.then(
    (bytes) => {
      tokenBytes = bytes + 1;
    },
    () => {},
  );
  return {
    /** Characters below which a text or render of a session with this context is tried in place. */
    maxChars(maxContextTokens: number | undefined): number {
      if (tokenBytes === undefined || tokenizer.encodeWithin === undefined) return 0;
      if (maxContextTokens === undefined) return IN_PLACE_MAX_CHARS;
      return Math.min(IN_PLACE_MAX_CHARS, Math.floor((maxContextTokens * tokenBytes) / 3));
    },
    /** Whether a heavy render is heavy by its text only, and short enough to render here. */
    renders(input: ConversationState | ObservationDeltaInput, maxChars: number): boolean {
      return input.messages.length < HEAVY_MESSAGES && renderChars(input, maxChars) < maxChars;
    },
  };
}

/** `tokenizer` with its `encode` replaced (every other member bound to the tokenizer). */
function withEncode<T extends TextTokenizer>(tokenizer: T, encode: (text: string) => number[]): T {
  return new Proxy(tokenizer, {
    get(target, property) {
      if (property === "encode") return encode;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `renderer` whose prompt and delta renders take the ids of `deferred` when it has them. */
function withDeferredRenders<R extends ChatRenderer>(
  renderer: R,
  deferred: (
    op: "prompt" | "delta",
    input: ConversationState | ObservationDeltaInput,
  ) => number[] | undefined,
): R {
  return new Proxy(renderer, {
    get(target, property) {
      if (property === "renderPrompt") {
        return (state: ConversationState) => deferred("prompt", state) ?? target.renderPrompt(state);
      }
      if (property === "renderObservationDelta") {
        return (input: ObservationDeltaInput) =>
          deferred("delta", input) ?? target.renderObservationDelta(input);
      }
      return Reflect.get(target, property, target);
    },
  });
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
  let active:
    | {
        cache: Map<string, Int32Array>;
        renders: Map<string, PoolResult>;
        deferrals: number;
        messageKeys: WeakMap<object, string>;
        /** Texts and renders shorter than this are tried in place ({@link IN_PLACE_MAX_CHARS}). */
        inPlaceChars: number;
      }
    | undefined;
  const inPlace = createInPlaceEncoder(tokenizer, pool);
  const encodeInPlace = (text: string, maxChars: number): number[] | undefined =>
    text.length < maxChars ? tokenizer.encodeWithin?.(text, IN_PLACE_MISSED_CHARS) : undefined;
  const encode = (text: string): number[] => {
    const scope = active;
    if (scope !== undefined && needsOffload(text, limits)) {
      const ids = scope.cache.get(text);
      if (ids !== undefined) return toIdList(ids);
      if (scope.deferrals < MAX_DEFERRALS) {
        const inPlace = encodeInPlace(text, scope.inPlaceChars);
        if (inPlace !== undefined) return inPlace;
        throw new DeferredEncode(text);
      }
    }
    return tokenizer.encode(text);
  };
  const wrapped = withEncode(tokenizer, encode);

  /** The ids of a render from the worker, `undefined` to render in place, or a deferral. */
  const deferredRender = (
    op: "prompt" | "delta",
    input: ConversationState | ObservationDeltaInput,
  ): number[] | undefined => {
    const scope = active;
    if (scope === undefined || scope.deferrals >= MAX_DEFERRALS || !isHeavyRender(input)) return undefined;
    // Heavy by its text only, and the tokenizer can bound its work: render here; the prompt's encode
    // tries the bounded in-place path and defers to a worker only past the bound.
    if (inPlace.renders(input, scope.inPlaceChars)) return undefined;
    const key = renderKey(op, input, scope.messageKeys);
    const result = scope.renders.get(key);
    if (result === undefined) throw new DeferredRender(op, input, key);
    return "ids" in result ? toIdList(result.ids) : undefined;
  };

  return {
    tokenizer: wrapped,
    pool,
    wrapRenderer: <R extends ChatRenderer>(renderer: R): R => withDeferredRenders(renderer, deferredRender),
    async run(fn, { signal, check, maxContextTokens, tooLarge }) {
      const scope = {
        cache: new Map<string, Int32Array>(),
        renders: new Map<string, PoolResult>(),
        deferrals: 0,
        messageKeys: new WeakMap<object, string>(),
        inPlaceChars: inPlace.maxChars(maxContextTokens),
      };
      for (;;) {
        let deferred: DeferredEncode | DeferredRender;
        active = scope;
        try {
          return fn();
        } catch (error) {
          if (!(error instanceof DeferredEncode) && !(error instanceof DeferredRender)) throw error;
          deferred = error;
        } finally {
          active = undefined;
        }
        scope.deferrals++;
        if (deferred instanceof DeferredEncode) {
          await check?.(deferred.text);
          const ids = await inPool(() => pool.encode(deferred.text, signal));
          if (ids === undefined) scope.deferrals = MAX_DEFERRALS;
          else scope.cache.set(deferred.text, ids);
          continue;
        }
        const { op, input, key } = deferred;
        const result = await inPool(async () =>
          pool.run(
            {
              kind: "render",
              op,
              input: plainInput(input),
              ...(maxContextTokens !== undefined
                ? { maxContextTokens, maxTokenBytes: await pool.maxTokenBytes }
                : {}),
            },
            signal,
          ),
        );
        if (result === undefined) {
          scope.deferrals = MAX_DEFERRALS;
          continue;
        }
        if ("tooLarge" in result && tooLarge !== undefined) tooLarge(result.tooLarge);
        scope.renders.set(key, result);
      }

      /**
       * Runs pool work; a pool that cannot serve (a worker that failed to start or died) gives
       * `undefined`, and the turn is then rendered in place rather than failed. An abort is rethrown.
       */
      async function inPool<V>(work: () => Promise<V>): Promise<V | undefined> {
        try {
          return await work();
        } catch (error) {
          if (signal?.aborted) throw error;
          return undefined;
        }
      }
    },
    close: () => pool.close(),
  };
}

/**
 * Worker threads a gateway's encode pool keeps started: the cores but one (the event loop's), 1 to 4, plus
 * one, so that while one worker tokenises a pathological input another is already warm (a worker takes
 * about a second to load the tokenizer, longer on a loaded machine).
 */
export function encodeWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1)) + 1;
}
