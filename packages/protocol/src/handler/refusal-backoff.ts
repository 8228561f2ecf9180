import { CanonicalizationError } from "@relax/chat";
import { ProtocolError } from "../errors/protocol-error";
import { readJsonBody } from "./read-json-body";

/**
 * How long a session whose bodies the gateway refuses waits before its next body is read: `initialMs`
 * after its refusal, doubling with each further refusal less than {@link RefusalBackoffOptions.resetMs}
 * after the previous one, up to `maxMs`.
 */
export interface RefusalBackoffOptions {
  /** Wait after a first refusal, in ms. @default 50 */
  initialMs: number;
  /** Longest wait, in ms (a refused request is still answered well within 1 s). @default 500 */
  maxMs: number;
  /** Quiet time after a refusal that forgets the session's refusals, in ms. @default 30000 */
  resetMs: number;
}

/** The defaults of {@link RefusalBackoffOptions}: 50 ms doubling to 500 ms, forgotten after 30 s. */
export const DEFAULT_REFUSAL_BACKOFF: Readonly<RefusalBackoffOptions> = {
  initialMs: 50,
  maxMs: 500,
  resetMs: 30_000,
};

/** Most sessions remembered; past it the ones whose refusals are forgotten anyway are dropped. */
const MAX_REMEMBERED = 4_096;

interface SessionRefusals {
  /** Refusals since the session was last forgotten. */
  count: number;
  /** When the last refusal was answered (ms, the backoff's clock). */
  lastRefusedAt: number;
  /** When the last body was admitted to be read. */
  lastAdmittedAt: number;
}

/**
 * A per-session rate bound on refused request bodies, for one gateway shard: reading and refusing an
 * over-limit body costs its transfer and a scan up to the limit (tens of ms for 10^5 messages), so an
 * agent that sends such bodies back to back would otherwise take a core from every healthy session on
 * its shard. Bodies of a session in backoff are admitted one at a time, `delay` apart, and not read
 * (the socket is left unread, so TCP holds the sender) until then. A session never refused never waits,
 * and one refusal costs its next body 50 ms (an agent's turn takes seconds). A credential is the
 * session's secret, so one agent cannot put another session in backoff.
 *
 * What counts as a refusal: a body over `--max-request-bytes` (413), over a request limit (400
 * `request_limit_exceeded`), too deep, or not JSON.
 */
export class RefusalBackoff {
  readonly #options: RefusalBackoffOptions;
  readonly #now: () => number;
  readonly #sessions = new Map<string, SessionRefusals>();

  /**
   * @param options - overrides of {@link DEFAULT_REFUSAL_BACKOFF}.
   * @param now - the clock, in ms (`performance.now` by default; injectable for tests).
   */
  constructor(options: Partial<RefusalBackoffOptions> = {}, now: () => number = () => performance.now()) {
    this.#options = { ...DEFAULT_REFUSAL_BACKOFF, ...options };
    this.#now = now;
  }

  /** Sessions with remembered refusals. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Admits one body of `sessionId`: the ms to wait before reading it (0 when the session is not in
   * backoff), its turn reserved. Concurrent bodies of one session in backoff are spaced `delay` apart.
   */
  admit(sessionId: string): number {
    const entry = this.#sessions.get(sessionId);
    if (entry === undefined) return 0;
    const now = this.#now();
    if (now - entry.lastRefusedAt >= this.#options.resetMs) {
      this.#sessions.delete(sessionId);
      return 0;
    }
    const delay = this.delayAfter(entry.count);
    if (delay === 0) return 0;
    const at = Math.max(now, entry.lastRefusedAt + delay, entry.lastAdmittedAt + delay);
    entry.lastAdmittedAt = at;
    return at - now;
  }

  /** The wait before the next body after `count` counted refusals: 0 for none, then `initialMs` doubling to `maxMs`. */
  delayAfter(count: number): number {
    if (count < 1) return 0;
    return Math.min(this.#options.maxMs, this.#options.initialMs * 2 ** (count - 1));
  }

  /** Records a refused body of `sessionId`. */
  refused(sessionId: string): void {
    const now = this.#now();
    let entry = this.#sessions.get(sessionId);
    if (entry !== undefined && now - entry.lastRefusedAt >= this.#options.resetMs) entry = undefined;
    if (entry === undefined) {
      if (this.#sessions.size >= MAX_REMEMBERED) this.#forgetQuiet(now);
      entry = { count: 0, lastRefusedAt: now, lastAdmittedAt: Number.NEGATIVE_INFINITY };
      this.#sessions.set(sessionId, entry);
    }
    entry.count++;
    entry.lastRefusedAt = now;
  }

  /**
   * Waits for `sessionId`'s turn to have a body read ({@link admit}); at once when it is not in backoff.
   *
   * @throws the signal's reason when `signal` aborts first (the client left).
   */
  async wait(sessionId: string, signal?: AbortSignal): Promise<void> {
    const ms = this.admit(sessionId);
    if (ms <= 0) return;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #forgetQuiet(now: number): void {
    for (const [id, entry] of this.#sessions) {
      if (now - entry.lastRefusedAt >= this.#options.resetMs) this.#sessions.delete(id);
    }
    // All still recent: forget the oldest (insertion order), so memory stays bounded.
    if (this.#sessions.size >= MAX_REMEMBERED) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
  }
}

/** Whether an error of `readJsonBody` refuses the body itself (size, limits, depth, not JSON). */
export function isBodyRefusal(error: unknown): boolean {
  if (error instanceof CanonicalizationError) return true;
  return (
    error instanceof ProtocolError &&
    (error.code === "request_limit_exceeded" || error.code === "request_too_large")
  );
}

/**
 * `readJsonBody` for an authenticated session's request, through `backoff` when there is one: waits for
 * the session's turn ({@link RefusalBackoff.wait}), reads, and records a refused body.
 *
 * @throws what `readJsonBody` throws, and the request signal's reason when the client leaves while waiting.
 */
export async function readSessionBody(
  request: Request,
  sessionId: string,
  backoff: RefusalBackoff | undefined,
  options: Parameters<typeof readJsonBody>[1],
): Promise<unknown> {
  if (backoff === undefined) return readJsonBody(request, options);
  await backoff.wait(sessionId, request.signal);
  try {
    return await readJsonBody(request, options);
  } catch (error) {
    if (isBodyRefusal(error) && !request.signal.aborted) backoff.refused(sessionId);
    throw error;
  }
}
