import type { GatewaySession } from "./gateway-session";

/** Live sessions by id (the credential). Closed sessions are removed, so their requests get 404. */
export class SessionRegistry {
  readonly #sessions = new Map<string, GatewaySession>();

  add(session: GatewaySession): void {
    if (this.#sessions.has(session.id)) throw new Error(`session ${session.id} is already registered`);
    this.#sessions.set(session.id, session);
  }

  get(sessionId: string): GatewaySession | undefined {
    const session = this.#sessions.get(sessionId);
    return session?.state === "closed" ? undefined : session;
  }

  /** Closes and forgets a session. */
  remove(sessionId: string, reason?: string): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    session.close(reason);
    this.#sessions.delete(sessionId);
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** A snapshot for `/health` and `/debug_state`. */
  snapshot(): { sessions: number; prepare: number; runtime: number; inflight: number; forestNodes: number } {
    let prepare = 0;
    let runtime = 0;
    let inflight = 0;
    let forestNodes = 0;
    for (const session of this.#sessions.values()) {
      if (session.state === "prepare") prepare++;
      if (session.state === "runtime") runtime++;
      inflight += session.inflight;
      forestNodes += session.forest.stats().nodes;
    }
    return { sessions: this.#sessions.size, prepare, runtime, inflight, forestNodes };
  }
}
