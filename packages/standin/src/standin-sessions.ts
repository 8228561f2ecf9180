import { randomUUID } from "node:crypto";
import type { SessionParamsWire } from "@relax/sglang/internal";
import type { StandinJob } from "./standin-scheduler";

/** One request of an engine session: the job (its prompt and, once done, its output) and its children. */
interface SessionRequestNode {
  job: StandinJob;
  parent: SessionRequestNode | undefined;
  children: SessionRequestNode[];
}

/** What a `/generate` with `session_params` resolves to: the full prompt, or why it is aborted at once. */
export type SessionResolution = { inputIds: number[] } | { abort: string };

/**
 * SGLang's engine sessions (`/open_session`, `session_params` on `/generate`, `/close_session`), as
 * `SessionController` / `Session.create_req` implement them: a session holds a tree of its requests by
 * rid. A request with `session_params: {id, rid, offset, replace, drop_previous_output}`:
 *
 * - `rid` given: its prompt is the named request's prompt + its output (`output_ids[:max_new_tokens]`,
 *   or the prompt alone with `drop_previous_output`), cut to its first `offset` tokens when `offset` is
 *   non-zero (an `offset` of 0 means "append", as in SGLang), followed by the request's own `input_ids`.
 *   The named request must exist (else the request is aborted: "Invalid request session id") and, unless
 *   `replace`, be finished (appending to an unfinished request aborts too). With `replace`, the named
 *   request's children are dropped (and the named one aborted if still running).
 * - `rid` absent: the prompt is the request's own `input_ids`; with `replace`, every request of the
 *   session is dropped first.
 * - An `id` that is not open: the request is aborted ("session id ... does not exist").
 *
 * The new request becomes a child of the named one. A stand-in (not a model) keeps no KV: the tree only
 * reconstructs prompts, which is what a client can observe.
 */
export class StandinSessions {
  readonly #sessions = new Map<string, Map<string, SessionRequestNode>>();

  /** Opens a session; `undefined` when `sessionId` is already open (SGLang answers an error). */
  open(sessionId: string | undefined): string | undefined {
    const id = sessionId ?? randomUUID().replaceAll("-", "");
    if (this.#sessions.has(id)) return undefined;
    this.#sessions.set(id, new Map());
    return id;
  }

  /** Closes a session, aborting its unfinished requests; an unknown id is ignored (as SGLang does). */
  close(sessionId: string): void {
    const nodes = this.#sessions.get(sessionId);
    if (nodes === undefined) return;
    for (const node of nodes.values()) abortIfRunning(node.job, "Session closed");
    this.#sessions.delete(sessionId);
  }

  /** Number of open sessions (tests). */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Resolves the prompt of `job` (whose `inputIds` are the request's own `input_ids`) against its
   * session and, unless aborted, records the job in the session's tree under `job.rid`.
   */
  resolve(job: StandinJob, params: SessionParamsWire): SessionResolution {
    const nodes = this.#sessions.get(params.id);
    if (nodes === undefined) return { abort: `Invalid request: session id ${params.id} does not exist` };
    let parent: SessionRequestNode | undefined;
    if (params.rid != null) {
      parent = nodes.get(params.rid);
      if (parent === undefined) return { abort: "Invalid request session id" };
      if (params.replace) {
        abortIfRunning(parent.job, "Replaced in its session");
        for (const child of parent.children) dropNode(child, nodes);
        parent.children = [];
      } else if (parent.job.state !== "finished") {
        return { abort: "Invalid request session id: appending to an unfinished request" };
      }
    } else if (params.replace) {
      for (const node of nodes.values()) abortIfRunning(node.job, "Replaced in its session");
      nodes.clear();
    }
    let inputIds = job.inputIds;
    if (parent !== undefined) {
      const previous = parent.job;
      const maxNew = previous.sampling.max_new_tokens ?? previous.outputIds.length;
      let base = params.drop_previous_output
        ? previous.inputIds.slice()
        : previous.inputIds.concat(previous.outputIds.slice(0, maxNew));
      if (params.offset != null && params.offset !== 0) base = base.slice(0, params.offset);
      inputIds = base.concat(job.inputIds);
    }
    const node: SessionRequestNode = { job, parent, children: [] };
    parent?.children.push(node);
    nodes.set(job.rid, node);
    return { inputIds };
  }
}

function abortIfRunning(job: StandinJob, message: string): void {
  if (job.state === "finished") return;
  job.abortMessage ??= message;
  job.controller.abort();
}

function dropNode(node: SessionRequestNode, nodes: Map<string, SessionRequestNode>): void {
  for (const child of node.children) dropNode(child, nodes);
  abortIfRunning(node.job, "Replaced in its session");
  nodes.delete(node.job.rid);
}
