import type { SessionParamsWire } from "./sglang-api";

/** The last finished request of one engine session: what the engine holds as its prefix. */
interface LastRequest {
  rid: string;
  inputIds: ArrayLike<number>;
  outputIds: readonly number[];
}

interface EngineSessionState {
  url: string;
  /** The engine's session id (`/open_session`'s answer), once opened. */
  id: Promise<string>;
  /** Unset while a request is in flight or after one that did not finish cleanly. */
  last: LastRequest | undefined;
}

/** How one `/generate` of a session is sent: the ids on the wire and the `session_params`. */
export interface SessionSend {
  ids: ArrayLike<number>;
  sessionParams: SessionParamsWire;
  /** Call with the engine's result once the request finished without abort; the next turn appends to it. */
  commit: (rid: string, outputIds: readonly number[]) => void;
}

/**
 * The client side of SGLang's engine sessions, one per routing key (the Relax session id): opens the
 * engine session on the key's first call, and from the second on sends only what differs from the
 * engine's copy of the previous request (its prompt + output): `session_params: {id, rid: <previous>,
 * offset: <common prefix length>}` with `input_ids` = the ids after that prefix. SGLang then runs
 * `(prompt + output)[:offset] + input_ids`, which equals the full ids by construction, so the engine
 * sees exactly the tokens the full-ids fallback would send. With no usable previous request (first call,
 * previous aborted or failed, nothing in common) it sends the full ids with `replace: true`, which drops
 * the session's earlier requests.
 */
export class EngineSessionTable {
  readonly #states = new Map<string, EngineSessionState>();
  readonly #open: (url: string) => Promise<string>;
  readonly #close: (url: string, id: string) => Promise<void>;

  constructor(options: {
    open: (url: string) => Promise<string>;
    close: (url: string, id: string) => Promise<void>;
  }) {
    this.#open = options.open;
    this.#close = options.close;
  }

  /**
   * Plans the call of `key` to `url` with the full prompt `inputIds`.
   *
   * @throws whatever `/open_session` throws on the key's first call (the key is then forgotten).
   */
  async plan(key: string, url: string, inputIds: ArrayLike<number>): Promise<SessionSend> {
    let state = this.#states.get(key);
    if (state !== undefined && state.url !== url) {
      this.forget(key);
      state = undefined;
    }
    if (state === undefined) {
      state = { url, id: this.#open(url), last: undefined };
      this.#states.set(key, state);
    }
    let id: string;
    try {
      id = await state.id;
    } catch (error) {
      if (this.#states.get(key) === state) this.#states.delete(key);
      throw error;
    }
    const last = state.last;
    state.last = undefined;
    const current = state;
    const commit = (rid: string, outputIds: readonly number[]) => {
      if (this.#states.get(key) === current) current.last = { rid, inputIds, outputIds };
    };
    let offset = last === undefined ? 0 : commonPrefix(inputIds, last);
    // At least one id of this request goes on the wire (an empty `input_ids` is refused).
    if (offset >= inputIds.length) offset = inputIds.length - 1;
    if (last === undefined || offset <= 0) {
      return { ids: inputIds, sessionParams: { id, replace: true }, commit };
    }
    return { ids: tail(inputIds, offset), sessionParams: { id, rid: last.rid, offset }, commit };
  }

  /** Forgets `key` and closes its engine session (best effort, not awaited by callers that don't care). */
  forget(key: string): Promise<void> {
    const state = this.#states.get(key);
    if (state === undefined) return Promise.resolve();
    this.#states.delete(key);
    return state.id.then(
      (id) => this.#close(state.url, id).catch(() => undefined),
      () => undefined,
    );
  }

  /** Keys with an engine session (tests, stats). */
  get size(): number {
    return this.#states.size;
  }
}

/** Length of the common prefix of `ids` and the previous request's prompt + output. */
function commonPrefix(ids: ArrayLike<number>, last: LastRequest): number {
  const prompt = last.inputIds;
  const n = ids.length;
  const promptLength = Math.min(prompt.length, n);
  let i = 0;
  while (i < promptLength && ids[i] === prompt[i]) i++;
  if (i < prompt.length) return i;
  const output = last.outputIds;
  let j = 0;
  while (i < n && j < output.length && ids[i] === output[j]) {
    i++;
    j++;
  }
  return i;
}

function tail(ids: ArrayLike<number>, from: number): ArrayLike<number> {
  if (ArrayBuffer.isView(ids)) return (ids as unknown as Int32Array).subarray(from);
  return Array.prototype.slice.call(ids, from) as number[];
}
