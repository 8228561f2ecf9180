import { randomBytes } from "node:crypto";
import {
  type GateControl,
  GatewaySession,
  type HeldTurnsSource,
  type SessionRegistry,
  type SessionSpec,
  withEngineFaultHold,
} from "@relax/agent-api";
import type { ChatRenderer } from "@relax/chat";
import type { ExportMode, ExportPipeline, GroupExportOutcome } from "@relax/export";
import { type MatchPolicy, SessionForest } from "@relax/forest";
import {
  type AgentOutcome,
  type AgentSessionHandle,
  buildSessionInput,
  type LaunchAgentSessionOptions,
  launchAgentSession,
  type SandboxBackend,
} from "@relax/launcher";
import type { PromptItem } from "../dataset/prompt-dataset";
import { bindBudgetsToGate } from "./bind-budgets-to-gate";

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
  gate?: GateControl;
  /** Turns held for engine failures (docs/contract.md#engine-failures): budgets pause while any is held. */
  engineFaults?: HeldTurnsSource;
  /** Where agents run (`--agent-sandbox`, uid pool, env policy). @default the launcher's local backend */
  agentBackend?: SandboxBackend;
  /**
   * Creates a Group's sessions. A sharded gateway (`--gateway-shards`) returns its controller-side
   * copies, each opened on the shard its Group hashes to (with its own `baseUrl`).
   * @default a {@link GatewaySession} with a {@link SessionForest} on `renderer`, served by `registry`'s gateway
   */
  createSession?: (options: SessionSpec) => GatewaySession;
}

/** Progress callbacks of {@link runGroup}. */
export interface GroupEvents {
  sessionPrepared?(sessionId: string): void;
  groupLeased?(groupId: string): void;
  sessionFinished?(sessionId: string, outcome: AgentOutcome): void;
}

/**
 * Where a Group is in its life (see docs/contract.md#cross-step-scheduling): `preparing` (agents
 * launching, first requests arriving), `held` (every session sent its first request, which is committed
 * and held; waiting for the lease), `running` (leased: budgets run, requests generate), `exited` (every
 * agent process has exited or was terminated; the resident slot is free, export and reward follow).
 */
export type GroupLifeState = "preparing" | "held" | "running" | "exited";

/** How the cross-step controller steers one Group (all optional: without it, a Group leases at once). */
export interface GroupControl {
  /**
   * Resolves when the Group may be leased. Until then a Group past its first-request barrier is `held`:
   * its first requests wait, its agents' active-time budgets do not run (`--agentic-prelaunch`).
   * @default leased as soon as the barrier is crossed
   */
  lease?: Promise<void>;
  /** Aborting it interrupts this Group alone: its agents are terminated, it ends dropped `interrupted`. */
  signal?: AbortSignal;
  /** Told each state change, with the Group's sessions (slot order). */
  onState?: (state: GroupLifeState, sessions: readonly GatewaySession[]) => void;
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

/** Which Group {@link runGroup} runs. */
export interface RunGroupOptions {
  groupIndex: number;
  prompt: PromptItem;
  /** Sessions in the Group (`--n-samples-per-prompt`). */
  size: number;
  mode: ExportMode;
  rolloutId: number;
  control?: GroupControl;
}

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
export async function runGroup(context: GroupContext, options: RunGroupOptions): Promise<GroupResult> {
  const { groupIndex, prompt, mode } = options;
  const groupId = `${mode === "eval" ? "eval-" : ""}g${options.rolloutId}-${groupIndex}-${randomBytes(3).toString("hex")}`;
  const sessions = createGroupSessions(context, { ...options, groupId });
  const run = startGroupRun(context, groupId, sessions, options.control);
  try {
    const input = await buildSessionInput({
      ...(prompt.messages !== undefined ? { prompt: prompt.messages as never } : {}),
      ...(prompt.metadata !== undefined ? { metadata: prompt.metadata } : {}),
      ...(prompt.media?.image ? { images: prompt.media.image as never[] } : {}),
      baseDir: context.agentCwd,
    });
    await launchGroupAgents(context, run, mode, input);
    if (run.failure === undefined) await crossFirstRequestBarrier(context, run);
    if (run.failure === undefined) leaseGroup(context, run);
    if (run.failure === undefined) await awaitGroupAgents(context, run);
  } finally {
    await closeGroup(context, run);
  }
  return exportGroupResult(context, run, options);
}

/**
 * Registers the Group's `size` sessions (slot order): each has a non-secret label `<groupId>.s<i>` and a
 * separate Bearer credential (128 random bits from the CSPRNG, seen only by the agent and the registry's
 * digest), a forest with the run's matching policy and context limit, and with
 * `--rollout-deterministic-seed` a seed base `seed + (promptIndex × size + i) × 1000`. `createSession`
 * (a shard) builds them when set.
 */
export function createGroupSessions(
  context: Pick<
    GroupContext,
    "registry" | "renderer" | "matchingPolicy" | "maxContextTokens" | "deterministicSeed" | "createSession"
  >,
  group: Pick<RunGroupOptions, "groupIndex" | "prompt" | "size" | "mode"> & { groupId: string },
): GatewaySession[] {
  const { groupId, groupIndex, prompt, size, mode } = group;
  const sessions: GatewaySession[] = [];
  for (let i = 0; i < size; i++) {
    const id = `${groupId}.s${i}`;
    const credential = randomBytes(16).toString("hex");
    const spec: SessionSpec = {
      id,
      credential,
      groupId,
      mode,
      forest: {
        sessionId: id,
        policy: context.matchingPolicy,
        maxContextTokens: context.maxContextTokens,
        rolloutId: id,
        metadata: { groupId, groupIndex, slot: i, promptIndex: prompt.index },
      },
      // sampling_seed = rollout_seed + sample position × 1000 (+ turn), with --rollout-deterministic-seed
      // (docs/contract.md#runtime-flags).
      ...(context.deterministicSeed !== undefined
        ? { samplingSeedBase: context.deterministicSeed + (prompt.index * size + i) * 1000 }
        : {}),
    };
    const session =
      context.createSession?.(spec) ??
      new GatewaySession({
        ...spec,
        forest: new SessionForest({ ...spec.forest, renderer: context.renderer }),
      });
    context.registry.add(session);
    sessions.push(session);
  }
  return sessions;
}

/** One Group in flight: its sessions, agents and the first failure (which ends it). */
interface GroupRun {
  groupId: string;
  sessions: GatewaySession[];
  handles: AgentSessionHandle[];
  outcomes: AgentOutcome[];
  control: GroupControl | undefined;
  /** The run's, the control's and the shard-loss signal together. */
  signal: AbortSignal;
  /** The first failure; once set the Group is dropped with it. */
  failure: { reason: string; message: string } | undefined;
  fail(reason: string, message: string): void;
  /** Generation gate hook (pause/resume for weight updates): bound once the Group is leased. */
  unbindGate?: () => void;
}

/** The Group's run state; a lost shard of any session fails it `shard_failed` and aborts its signal. */
function startGroupRun(
  context: GroupContext,
  groupId: string,
  sessions: GatewaySession[],
  control: GroupControl | undefined,
): GroupRun {
  // Signals derived with AbortSignal.any put no listener on the run's signal, which outlives every Group
  // (one listener per resident session there would pass Node's MaxListeners limit).
  // The loss of a gateway shard serving one of the sessions ends the Group (its forest is gone).
  const lost = new AbortController();
  const signals = [context.signal, control?.signal, lost.signal].filter((item) => item !== undefined);
  const run: GroupRun = {
    groupId,
    sessions,
    handles: [],
    outcomes: [],
    control,
    signal: AbortSignal.any(signals),
    failure: undefined,
    fail(reason, message) {
      run.failure ??= { reason, message };
    },
  };
  control?.onState?.("preparing", sessions);
  for (const session of sessions) {
    session.onLost((message) => {
      run.fail("shard_failed", `${message}; the Group's ${sessions.length} session(s) were served by it`);
      lost.abort(new Error(message));
    });
  }
  return run;
}

/** Prepare: launches each session's agent once its session is ready; a launch error fails the Group. */
async function launchGroupAgents(
  context: GroupContext,
  run: GroupRun,
  mode: ExportMode,
  input: Awaited<ReturnType<typeof buildSessionInput>>,
): Promise<void> {
  const launchAgent = context.launchAgent ?? launchAgentSession;
  for (const session of run.sessions) {
    try {
      await session.ready;
      if (run.failure !== undefined) break;
      run.handles.push(
        await launchAgent({
          sessionId: session.credential,
          sessionLabel: session.id,
          groupId: run.groupId,
          rolloutMode: mode,
          baseUrl: session.baseUrl ?? context.baseUrl,
          command: context.agentCommand,
          cwd: context.agentCwd,
          agentEnv: context.agentEnv,
          timeoutMs: context.agentTimeoutMs,
          input,
          keepIoDir: context.keepSessionDirs,
          ...(context.logDir !== undefined ? { logDir: context.logDir } : {}),
          ...(context.agentBackend !== undefined ? { backend: context.agentBackend } : {}),
          onWarning: () => {},
          ...(run.signal !== undefined ? { signal: AbortSignal.any([run.signal]) } : {}),
        }),
      );
      context.events?.sessionPrepared?.(session.id);
    } catch (error) {
      run.fail("agent_launch_failed", `session ${session.id}: ${(error as Error).message}`);
      break;
    }
  }
}

/**
 * Resolves `"interrupted"` once `signal` aborts (at once if it has); `dispose` removes its listener.
 */
function whenAborted(signal: AbortSignal): { interrupted: Promise<"interrupted">; dispose: () => void } {
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<"interrupted">((resolve) => {
    onAbort = () => resolve("interrupted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return {
    interrupted,
    dispose: () => onAbort !== undefined && signal.removeEventListener("abort", onAbort),
  };
}

/**
 * First-request barrier: waits until every session sent a request, or an agent exits first, or the
 * first-request timeout, or an interrupt — each but the first fails the Group. With a `control.lease`
 * the Group is then `held` until the lease (an exit or interrupt meanwhile fails it).
 */
async function crossFirstRequestBarrier(context: GroupContext, run: GroupRun): Promise<void> {
  const { sessions, handles, signal, control } = run;
  const firstRequests = Promise.all(
    sessions.map((session) => new Promise<void>((resolve) => session.onFirstRequest(resolve))),
  );
  const earlyExit = Promise.race(handles.map((handle, i) => handle.done.then((outcome) => ({ i, outcome }))));
  const timeoutMs = context.firstRequestTimeoutMs ?? context.agentTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const prepareTimeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const abort = whenAborted(signal);
  const first = await Promise.race([
    firstRequests.then(() => undefined),
    earlyExit,
    prepareTimeout,
    abort.interrupted,
  ]);
  clearTimeout(timer);
  abort.dispose();
  if (first === "interrupted") {
    run.fail("interrupted", "the run was interrupted");
  } else if (first === "timeout") {
    const waiting = sessions.filter((session) => session.requests === 0).map((session) => session.id);
    run.fail(
      "agent_first_request_timeout",
      `no first model request within ${timeoutMs / 1000}s from ${waiting.join(", ")}`,
    );
  } else if (first !== undefined && sessions[first.i]!.requests === 0) {
    const refusal = describeRefusal(sessions[first.i]!);
    run.fail(
      refusal !== undefined ? "request_refused" : "agent_exited_before_first_request",
      refusal !== undefined
        ? `session ${sessions[first.i]!.id}: ${refusal}; the agent then exited (${describeOutcome(first.outcome)}`
        : `session ${sessions[first.i]!.id} exited before its first model request (${describeOutcome(first.outcome)}`,
    );
  } else if (control?.lease !== undefined) {
    // Prelaunch: first requests committed and held; no budget runs until the lease.
    control.onState?.("held", sessions);
    const leaseAbort = whenAborted(signal);
    const held = await Promise.race([
      control.lease.then(() => "leased" as const),
      earlyExit.then((exit) => exit),
      leaseAbort.interrupted,
    ]);
    leaseAbort.dispose();
    if (held === "interrupted") run.fail("interrupted", "the Group was interrupted while held");
    else if (held !== "leased") {
      run.fail(
        "agent_exited_while_held",
        `session ${sessions[held.i]!.id} exited while held for its lease (${describeOutcome(held.outcome)}`,
      );
    }
  }
}

/** Leases the Group: sessions' requests flow, budgets run, the gate pauses the budgets; `running`. */
function leaseGroup(context: GroupContext, run: GroupRun): void {
  const { sessions, handles } = run;
  for (const session of sessions) session.lease();
  for (const handle of handles) handle.activate();
  if (context.gate !== undefined)
    run.unbindGate = bindBudgetsToGate(
      withEngineFaultHold(context.gate, context.engineFaults),
      handles,
      (i) => sessions[i]!.protected,
    );
  context.events?.groupLeased?.(run.groupId);
  run.control?.onState?.("running", sessions);
}

/** Runtime: waits for every agent; the first failing session fails the Group and terminates the others. */
async function awaitGroupAgents(context: GroupContext, run: GroupRun): Promise<void> {
  const { sessions, handles } = run;
  await Promise.all(
    handles.map(async (handle, i) => {
      const outcome = await handle.done;
      context.events?.sessionFinished?.(sessions[i]!.id, outcome);
      if (outcome.status === "failed" && run.failure === undefined) {
        const refusal = describeRefusal(sessions[i]!);
        run.fail(
          outcome.error.kind === "timeout" ? "agent_timeout" : `agent_${outcome.error.kind}`,
          `session ${sessions[i]!.id}: ${outcome.error.message}${refusal !== undefined ? ` (after ${refusal})` : ""}`,
        );
        await Promise.all(handles.map((other) => other.terminate("group dropped")));
      }
    }),
  );
  // Interrupted at a step close (or the run ended): the agents were terminated, nothing to export.
  if (run.failure === undefined && run.signal?.aborted) run.fail("interrupted", "the Group was interrupted");
}

/**
 * Nothing outlives the Group: unbinds the gate, terminates what still runs (collecting every outcome),
 * closes every session (404 from now on), waits for their final forests, and reports `exited`.
 */
async function closeGroup(context: GroupContext, run: GroupRun): Promise<void> {
  run.unbindGate?.();
  const settled = await Promise.all(run.handles.map((handle) => handle.terminate("group finished")));
  run.outcomes.push(...settled);
  for (const session of run.sessions) context.registry.remove(session.id, "group finished");
  // A shard's sessions: wait for their final forests (at once in a one-process gateway).
  await Promise.all(run.sessions.map((session) => session.settled));
  // The resident slot is free from here: export and reward run outside resident capacity.
  run.control?.onState?.("exited", run.sessions);
}

/** The Group's result: dropped with its failure, else exported (or dropped with the export's reason). */
async function exportGroupResult(
  context: GroupContext,
  run: GroupRun,
  options: RunGroupOptions,
): Promise<GroupResult> {
  const { groupId, sessions, outcomes, failure } = run;
  const { prompt, mode } = options;
  if (failure !== undefined) {
    return { kind: "dropped", groupId, prompt, ...failure, sessions, outcomes };
  }
  const exported = await context.exporter.exportGroup(
    {
      groupIndex: options.groupIndex,
      promptIndex: prompt.index,
      sessions: sessions.map((session, i) => {
        const outcome = outcomes[i]!;
        return {
          sessionId: session.id,
          forest: session.forest,
          output: outcome.status === "succeeded" ? outcome.output : null,
          datasetSample: prompt.metadata,
          sideContexts: trainedSideForests(session),
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

/**
 * The session's side forests whose request class has the policy `train` (marked `metadata.policy` when the
 * turn runner created them), for export as side contexts (docs/contract.md#side-contexts).
 */
function trainedSideForests(session: GatewaySession): Array<{ requestClass: string; forest: SessionForest }> {
  return [...session.sideForests]
    .filter(([, forest]) => forest.metadata?.policy === "train")
    .map(([requestClass, forest]) => ({ requestClass, forest }));
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
