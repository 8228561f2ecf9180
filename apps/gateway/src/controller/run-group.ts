import { randomBytes } from "node:crypto";
import type { ChatRenderer } from "@relax/chat";
import type { ExportMode, ExportPipeline, GroupExportOutcome } from "@relax/export";
import { type MatchPolicy, SessionForest } from "@relax/forest";
import {
  type AgentOutcome,
  type AgentSessionHandle,
  buildSessionInput,
  type LaunchAgentSessionOptions,
  launchAgentSession,
} from "@relax/launcher";
import { GatewaySession } from "../service/gateway-session";
import type { GenerationGate } from "../service/generation-gate";
import type { SessionRegistry } from "../service/session-registry";
import { bindBudgetsToGate } from "./bind-budgets-to-gate";
import type { PromptItem } from "./prompt-dataset";

/**
 * Starts one session's agent and returns its handle, as `launchAgentSession` of `@relax/launcher` does
 * (the handle's active-time budget starts paused; `done` resolves with the outcome). Injected so tests
 * can run an in-process agent instead of a process.
 */
export type LaunchAgent = (options: LaunchAgentSessionOptions) => Promise<AgentSessionHandle>;

/** Everything a Group needs from the run; shared by all Groups. */
export interface GroupContext {
  registry: SessionRegistry;
  renderer: ChatRenderer;
  exporter: ExportPipeline;
  /** `RELAX_BASE_URL` handed to agents (ends with `/`). */
  baseUrl: string;
  agentCommand: string;
  agentCwd: string;
  agentEnv: string[];
  /** Active-time budget per session, in ms. */
  agentTimeoutMs: number;
  /**
   * Wall-clock limit for every session of a Group to send its first request (Prepare does not consume the
   * active-time budget, so this bounds a hung start). @default agentTimeoutMs
   */
  firstRequestTimeoutMs?: number;
  matchingPolicy: MatchPolicy;
  /** `--rollout-seed` when `--rollout-deterministic-seed` is on: per-session, per-turn sampling seeds. */
  deterministicSeed?: number;
  maxContextTokens: number;
  keepSessionDirs: boolean;
  /** Directory for per-session logs (kept after the session). */
  logDir?: string;
  /** Lifecycle callbacks for progress and logs. */
  events?: GroupEvents;
  /** Aborting it terminates every agent of the Group (the run was interrupted). */
  signal?: AbortSignal;
  /** How an agent is started. @default launchAgentSession (`bash -lc <agentCommand>` per session) */
  launchAgent?: LaunchAgent;
  /** The run's generation gate (`relax serve`): while it is closed, the Group's budgets are paused. */
  gate?: GenerationGate;
}

/** Progress callbacks of {@link runGroup}. */
export interface GroupEvents {
  sessionPrepared?(sessionId: string): void;
  groupLeased?(groupId: string): void;
  sessionFinished?(sessionId: string, outcome: AgentOutcome): void;
}

/** How a Group ended. */
export type GroupResult =
  | {
      kind: "exported";
      groupId: string;
      prompt: PromptItem;
      export: Extract<GroupExportOutcome, { kind: "exported" }>;
      sessions: GatewaySession[];
      outcomes: AgentOutcome[];
    }
  | {
      kind: "dropped";
      groupId: string;
      prompt: PromptItem;
      reason: string;
      message: string;
      sessions: GatewaySession[];
      outcomes: AgentOutcome[];
      export?: GroupExportOutcome;
    };

/**
 * Runs one Group of sessions through its lifecycle (see docs/contract.md#session-lifecycle):
 * Prepare (write each session's input, launch its agent process) → first-request barrier (the Group is
 * leased only when every session has sent its first request; requests are held until then) → Runtime
 * (active-time budgets running) → every process exits → export and credit for the whole Group.
 *
 * A session that fails (launch error, exit before its first request, non-zero exit, timeout, invalid
 * output) ends the Group at once: the other agents are terminated and the Group is dropped whole, with
 * the reason. No process outlives the Group, and sessions are closed (404) before export.
 */
export async function runGroup(
  context: GroupContext,
  options: { groupIndex: number; prompt: PromptItem; size: number; mode: ExportMode; rolloutId: number },
): Promise<GroupResult> {
  const { registry, renderer, exporter, events } = context;
  const launchAgent = context.launchAgent ?? launchAgentSession;
  const { groupIndex, prompt, size, mode } = options;
  const groupId = `${mode === "eval" ? "eval-" : ""}g${options.rolloutId}-${groupIndex}-${randomBytes(3).toString("hex")}`;
  const sessions: GatewaySession[] = [];
  for (let i = 0; i < size; i++) {
    // The session id is also the agent's Bearer credential: 128 random bits from the CSPRNG.
    const id = `${groupId}.s${i}-${randomBytes(16).toString("hex")}`;
    const forest = new SessionForest({
      sessionId: id,
      renderer,
      policy: context.matchingPolicy,
      maxContextTokens: context.maxContextTokens,
      rolloutId: id,
      metadata: { groupId, groupIndex, slot: i, promptIndex: prompt.index },
    });
    const session = new GatewaySession({
      id,
      groupId,
      mode,
      forest,
      // sampling_seed = rollout_seed + sample position × 1000 (+ turn), with --rollout-deterministic-seed
      // (docs/contract.md#runtime-flags).
      ...(context.deterministicSeed !== undefined
        ? { samplingSeedBase: context.deterministicSeed + (prompt.index * size + i) * 1000 }
        : {}),
    });
    registry.add(session);
    sessions.push(session);
  }

  // Signals derived with AbortSignal.any put no listener on the run's signal, which outlives every Group
  // (one listener per resident session there would pass Node's MaxListeners limit).
  const signal = context.signal !== undefined ? AbortSignal.any([context.signal]) : undefined;
  const handles: AgentSessionHandle[] = [];
  const outcomes: AgentOutcome[] = [];
  let failure: { reason: string; message: string } | undefined;
  // Generation gate hook (pause/resume for weight updates): bound once the Group is leased.
  let unbindGate: (() => void) | undefined;
  const fail = (reason: string, message: string) => {
    failure ??= { reason, message };
  };
  try {
    const input = await buildSessionInput({
      ...(prompt.messages !== undefined ? { prompt: prompt.messages as never } : {}),
      ...(prompt.metadata !== undefined ? { metadata: prompt.metadata } : {}),
      ...(prompt.media?.image ? { images: prompt.media.image as never[] } : {}),
      baseDir: context.agentCwd,
    });
    for (const session of sessions) {
      try {
        handles.push(
          await launchAgent({
            sessionId: session.id,
            groupId,
            rolloutMode: mode,
            baseUrl: context.baseUrl,
            command: context.agentCommand,
            cwd: context.agentCwd,
            agentEnv: context.agentEnv,
            timeoutMs: context.agentTimeoutMs,
            input,
            keepIoDir: context.keepSessionDirs,
            ...(context.logDir !== undefined ? { logDir: context.logDir } : {}),
            onWarning: () => {},
            ...(signal !== undefined ? { signal: AbortSignal.any([signal]) } : {}),
          }),
        );
        events?.sessionPrepared?.(session.id);
      } catch (error) {
        fail("agent_launch_failed", `session ${session.id}: ${(error as Error).message}`);
        break;
      }
    }

    if (failure === undefined) {
      // First-request barrier: every session sent a request, or some agent exited first.
      const firstRequests = Promise.all(
        sessions.map((session) => new Promise<void>((resolve) => session.onFirstRequest(resolve))),
      );
      const earlyExit = Promise.race(
        handles.map((handle, i) => handle.done.then((outcome) => ({ i, outcome }))),
      );
      let timer: NodeJS.Timeout | undefined;
      const prepareTimeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), context.firstRequestTimeoutMs ?? context.agentTimeoutMs);
      });
      let onAbort: (() => void) | undefined;
      const interrupted = new Promise<"interrupted">((resolve) => {
        onAbort = () => resolve("interrupted");
        if (signal?.aborted) onAbort();
        else signal?.addEventListener("abort", onAbort, { once: true });
      });
      const first = await Promise.race([
        firstRequests.then(() => undefined),
        earlyExit,
        prepareTimeout,
        interrupted,
      ]);
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
      if (first === "interrupted") {
        fail("interrupted", "the run was interrupted");
      } else if (first === "timeout") {
        const waiting = sessions.filter((session) => session.requests === 0).map((session) => session.id);
        fail(
          "agent_first_request_timeout",
          `no first model request within ${(context.firstRequestTimeoutMs ?? context.agentTimeoutMs) / 1000}s from ${waiting.join(", ")}`,
        );
      } else if (first !== undefined && sessions[first.i]!.requests === 0) {
        const refusal = describeRefusal(sessions[first.i]!);
        fail(
          refusal !== undefined ? "request_refused" : "agent_exited_before_first_request",
          refusal !== undefined
            ? `session ${sessions[first.i]!.id}: ${refusal}; the agent then exited (${describeOutcome(first.outcome)}`
            : `session ${sessions[first.i]!.id} exited before its first model request (${describeOutcome(first.outcome)}`,
        );
      } else {
        for (const session of sessions) session.lease();
        for (const handle of handles) handle.activate();
        if (context.gate !== undefined) unbindGate = bindBudgetsToGate(context.gate, handles);
        events?.groupLeased?.(groupId);
      }
    }

    if (failure === undefined) {
      // Runtime: the first failing session ends the Group.
      await Promise.all(
        handles.map(async (handle, i) => {
          const outcome = await handle.done;
          events?.sessionFinished?.(sessions[i]!.id, outcome);
          if (outcome.status === "failed" && failure === undefined) {
            const refusal = describeRefusal(sessions[i]!);
            fail(
              outcome.error.kind === "timeout" ? "agent_timeout" : `agent_${outcome.error.kind}`,
              `session ${handle.sessionId}: ${outcome.error.message}${refusal !== undefined ? ` (after ${refusal})` : ""}`,
            );
            await Promise.all(handles.map((other) => other.terminate("group dropped")));
          }
        }),
      );
    }
  } finally {
    unbindGate?.();
    // Nothing outlives the Group: terminate what still runs, then close every session (404 from now on).
    const settled = await Promise.all(handles.map((handle) => handle.terminate("group finished")));
    outcomes.push(...settled);
    for (const session of sessions) registry.remove(session.id, "group finished");
  }

  if (failure !== undefined) {
    return { kind: "dropped", groupId, prompt, ...failure, sessions, outcomes };
  }
  const exported = await exporter.exportGroup(
    {
      groupIndex,
      promptIndex: prompt.index,
      sessions: sessions.map((session, i) => {
        const outcome = outcomes[i]!;
        return {
          sessionId: session.id,
          forest: session.forest,
          output: outcome.status === "succeeded" ? outcome.output : null,
          datasetSample: prompt.metadata,
        };
      }),
    },
    { mode },
  );
  if (exported.kind !== "exported") {
    return {
      kind: "dropped",
      groupId,
      prompt,
      reason: exported.reason,
      message: exported.message,
      sessions,
      outcomes,
      export: exported,
    };
  }
  return { kind: "exported", groupId, prompt, export: exported, sessions, outcomes };
}

/** `request refused: 400 <message> (POST path)` for the session's last non-2xx answer, if any. */
function describeRefusal(session: GatewaySession): string | undefined {
  const refusal = session.lastRefusal;
  return refusal === undefined
    ? undefined
    : `request refused: ${refusal.status} ${refusal.message} (${refusal.path})`;
}

/** `<what happened>)` plus, on following lines, the last lines of the agent's log. */
function describeOutcome(outcome: AgentOutcome): string {
  if (outcome.status === "failed") {
    const tail = outcome.error.logTail.trim();
    const first = outcome.error.message.split("\n")[0] ?? "failed";
    return tail
      ? `${first})\n--- agent log (last lines) ---\n${tail.split("\n").slice(-20).join("\n")}`
      : `${first})`;
  }
  if (outcome.status === "terminated") return `terminated: ${outcome.reason})`;
  return `exit code ${outcome.exitCode})`;
}
