import type { TrainingSample } from "@relax/forest";
import {
  type SideCreditFunction,
  type SideCreditInput,
  validateSideCreditResult,
} from "../credit/side-credit-function";
import type { ExportNodeLike } from "../plan/exportable-forest";
import type { SessionExportPlan } from "../plan/plan-session-export";
import { isLastSegment } from "./group-contexts";
import { type GroupDrop, messageOf } from "./group-drop";
import type { ExportedContext, SessionExportInput } from "./group-export-outcome";

/**
 * What the export step needs from a side forest (`SessionForest` from `@relax/forest` satisfies it):
 * its exportable leaves in commit order and the sample of a node.
 */
export interface SideForestLike {
  exportableLeaves(): ExportNodeLike[];
  buildSample(stateHash: string): TrainingSample;
}

/** One trained side forest of a session: the request class and its forest. */
export interface SideContextInput {
  /** The request class whose policy is `train` (`compaction`, `subagent`, …). */
  requestClass: string;
  forest: SideForestLike;
}

/**
 * The Group's side contexts: for every finalizable session (in sampled order), every exportable leaf of
 * each trained side forest, named `<class>:<i>` (`i` counts the class's leaves in commit order). Each
 * leaf is its own context: one compaction request, or one sub-agent's whole trajectory. The parent
 * turn comes from the first turn's `parentStateHash` metadata (written by the gateway).
 */
export function collectSideContexts(
  sessions: readonly SessionExportInput[],
  plans: readonly SessionExportPlan[],
  groupIndex: number,
): ExportedContext[] {
  const out: ExportedContext[] = [];
  for (const [slot, session] of sessions.entries()) {
    if (!plans[slot]?.ok) continue;
    for (const { requestClass, forest } of session.sideContexts ?? []) {
      for (const [i, leaf] of forest.exportableLeaves().entries()) {
        const sample = forest.buildSample(leaf.stateHash);
        const parent = sample.turns[0]?.metadata?.parentStateHash;
        const name = `${requestClass}:${i}`;
        out.push({
          sessionId: session.sessionId,
          slot,
          groupIndex,
          name,
          key: name,
          stateHash: leaf.stateHash,
          sample,
          metadata: {},
          exportedReward: undefined,
          reward: null,
          rewardDetails: {},
          advantage: null,
          requestClass,
          ...(typeof parent === "string" ? { parentStateHash: parent } : {}),
        });
      }
    }
  }
  return out;
}

/**
 * The main context a side context is credited from: its session's last segment (compaction segment or
 * agent context) for an implicit export, the first record for an explicit one.
 */
export function mainContextOf(
  contexts: readonly ExportedContext[],
  slot: number,
): ExportedContext | undefined {
  return contexts.find((context) => context.slot === slot && isLastSegment(context));
}

/** Options of {@link applySideCredit}. */
export interface ApplySideCreditOptions {
  /** The Group's own contexts, credited. */
  contexts: readonly ExportedContext[];
  /** The side contexts ({@link collectSideContexts}); reward and advantage set in place. */
  side: readonly ExportedContext[];
  /** The user rule; without it each side context takes its main context's reward and advantage. */
  sideCredit?: SideCreditFunction | undefined;
}

/**
 * Credits side contexts, in place (see docs/contract.md#side-contexts). Default rule: the reward,
 * reward details and advantage of the session's main context ({@link mainContextOf}). With a
 * side-credit function: its result (`advantage`, and `reward` when given, else the main context's).
 *
 * @returns a drop (`side_credit_function_error`) when the function throws or returns a malformed value.
 */
export async function applySideCredit(options: ApplySideCreditOptions): Promise<GroupDrop | undefined> {
  const { contexts, side, sideCredit } = options;
  const group = contexts
    .filter((context) => isLastSegment(context))
    .map((context) => ({
      sessionId: context.sessionId,
      reward: context.reward,
      advantage: context.advantage ?? 0,
    }));
  for (const context of side) {
    const main = mainContextOf(contexts, context.slot)!;
    context.reward = main.reward;
    context.rewardDetails = { ...main.rewardDetails };
    context.advantage = main.advantage ?? 0;
    if (sideCredit === undefined) continue;
    const input: SideCreditInput = {
      requestClass: context.requestClass!,
      name: context.name!,
      sessionId: context.sessionId,
      slot: context.slot,
      groupIndex: context.groupIndex,
      stateHash: context.stateHash,
      ...(context.parentStateHash !== undefined ? { parentStateHash: context.parentStateHash } : {}),
      numTurns: context.sample.turnCount,
      generatedTokens: context.sample.lossMask.reduce((sum, bit) => sum + bit, 0),
      main: {
        name: main.name,
        reward: main.reward,
        advantage: main.advantage ?? 0,
        metadata: structuredClone(main.metadata),
      },
      group: structuredClone(group),
    };
    try {
      const result = validateSideCreditResult(await sideCredit(input));
      context.advantage = result.advantage;
      if (result.reward !== undefined) context.reward = result.reward;
    } catch (error) {
      return {
        reason: "side_credit_function_error",
        message: `side-credit function for ${context.name} of session ${context.sessionId}: ${messageOf(error)}`,
        cause: error,
      };
    }
  }
  return undefined;
}
