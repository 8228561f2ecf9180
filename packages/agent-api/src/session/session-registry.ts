import { createHash, timingSafeEqual } from "node:crypto";
import type { GatewaySession } from "./gateway-session";

/**
 * Live sessions, found by their credential (what agents send as `Authorization: Bearer …`) or by their
 * id (the non-secret label). Closed sessions are removed, so their requests get 404.
 *
 * Credentials are held only as SHA-256 digests: a lookup hashes the presented token, finds the entry by
 * digest and confirms it with `crypto.timingSafeEqual` over the two 32-byte digests, so neither the map
 * nor the comparison leaks through timing how much of a guess was right.
 */
export class SessionRegistry {
  readonly #byDigest = new Map<string, { digest: Buffer; session: GatewaySession }>();
  readonly #byId = new Map<string, GatewaySession>();
  readonly #onRemove: ((sessionId: string) => void) | undefined;

  /** @param options.onRemove - called with the id of each removed session (e.g. to close its engine session). */
  constructor(options: { onRemove?: (sessionId: string) => void } = {}) {
    this.#onRemove = options.onRemove;
  }

  /** @throws Error when the id or the credential is already registered. */
  add(session: GatewaySession): void {
    const digest = credentialDigest(session.credential);
    const key = digest.toString("hex");
    if (this.#byId.has(session.id) || this.#byDigest.has(key)) {
      throw new Error(`session ${session.id} is already registered`);
    }
    this.#byId.set(session.id, session);
    this.#byDigest.set(key, { digest, session });
  }

  /** The open session whose credential is `credential`, or `undefined`. */
  get(credential: string): GatewaySession | undefined {
    const digest = credentialDigest(credential);
    const entry = this.#byDigest.get(digest.toString("hex"));
    if (entry === undefined || !timingSafeEqual(entry.digest, digest)) return undefined;
    return entry.session.state === "closed" ? undefined : entry.session;
  }

  /** The open session with id (label) `sessionId`, or `undefined`. Never use it to authenticate. */
  getById(sessionId: string): GatewaySession | undefined {
    const session = this.#byId.get(sessionId);
    return session?.state === "closed" ? undefined : session;
  }

  /** Closes and forgets a session, by id. */
  remove(sessionId: string, reason?: string): void {
    const session = this.#byId.get(sessionId);
    if (session === undefined) return;
    session.close(reason);
    this.#byId.delete(sessionId);
    this.#byDigest.delete(credentialDigest(session.credential).toString("hex"));
    this.#onRemove?.(sessionId);
  }

  /** The open sessions, in registration order. */
  list(): GatewaySession[] {
    return [...this.#byId.values()].filter((session) => session.state !== "closed");
  }

  get size(): number {
    return this.#byId.size;
  }

  /** A snapshot for `/health` and `/debug_state`. */
  snapshot(): { sessions: number; prepare: number; runtime: number; inflight: number; forestNodes: number } {
    let prepare = 0;
    let runtime = 0;
    let inflight = 0;
    let forestNodes = 0;
    for (const session of this.#byId.values()) {
      if (session.state === "prepare") prepare++;
      if (session.state === "runtime") runtime++;
      inflight += session.inflight;
      forestNodes += session.forest.stats().nodes;
    }
    return { sessions: this.#byId.size, prepare, runtime, inflight, forestNodes };
  }
}

function credentialDigest(credential: string): Buffer {
  return createHash("sha256").update(credential, "utf8").digest();
}
