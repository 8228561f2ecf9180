import { contextKey } from "../plan/context-name";
import type { SessionExportPlan } from "../plan/plan-session-export";
import type { GroupDrop } from "./group-drop";
import type { ExportedContext, SessionDrop } from "./group-export-outcome";

/**
 * The Group's contexts from its session plans, in sampled order (sessions, then each session's contexts
 * in export order); a non-finalizable plan contributes none. Rewards and advantages start unset
 * (`null`, `{}`); `exportedReward` is the agent's value.
 */
export function collectContexts(plans: readonly SessionExportPlan[], groupIndex: number): ExportedContext[] {
  const contexts: ExportedContext[] = [];
  for (const [slot, plan] of plans.entries()) {
    if (!plan.ok) continue;
    for (const context of plan.contexts) {
      contexts.push({
        sessionId: plan.sessionId,
        slot,
        groupIndex,
        name: context.name,
        key: contextKey(context.name),
        stateHash: context.stateHash,
        sample: context.sample,
        metadata: context.metadata,
        exportedReward: context.reward,
        reward: null,
        rewardDetails: {},
        advantage: null,
        ...(context.segment !== undefined ? { segment: context.segment } : {}),
        ...(context.turnRewards !== undefined ? { turnRewardsSource: context.turnRewards } : {}),
      });
    }
  }
  return contexts;
}

/**
 * The drop for non-finalizable sessions, or `undefined` when every plan is ok: the first failure's
 * reason and message (with a count of the others), and every failure in `sessions`.
 */
export function nonFinalizableDrop(plans: readonly SessionExportPlan[]): GroupDrop | undefined {
  const failures: SessionDrop[] = [];
  for (const plan of plans) {
    if (!plan.ok) failures.push({ sessionId: plan.sessionId, reason: plan.reason, message: plan.message });
  }
  if (failures.length === 0) return undefined;
  const first = failures[0]!;
  const more = failures.length > 1 ? ` (and ${failures.length - 1} more non-finalizable session(s))` : "";
  return { reason: first.reason, message: `${first.message}${more}`, sessions: failures };
}

/**
 * The drop for a session that exported more than one context when no custom advantage function can
 * assign their credit, or `undefined`. The segments of one implicit export (compaction segments, agent
 * contexts) count as one context (its last segment).
 */
export function multipleContextsDrop(plans: readonly SessionExportPlan[]): GroupDrop | undefined {
  const multi = plans.find(
    (plan) => plan.ok && plan.contexts.filter((context) => isLastSegment(context)).length > 1,
  );
  if (!multi?.ok) return undefined;
  return {
    reason: "multiple_contexts_without_custom_advantage",
    message:
      `session ${multi.sessionId} exported ${multi.contexts.length} contexts, but no custom advantage function ` +
      "is configured to assign their credit",
  };
}

/** True unless the context is an earlier segment (compaction segment, agent context) of its session. */
export function isLastSegment(context: { segment?: { index: number; count: number } }): boolean {
  return context.segment === undefined || context.segment.index === context.segment.count - 1;
}

/**
 * The last segment of the session `context` belongs to (`context` must be a segment; the
 * planner always exports a session's segments together).
 */
export function lastSegmentOf(
  contexts: readonly ExportedContext[],
  context: ExportedContext,
): ExportedContext {
  return contexts.find(
    (other) => other.slot === context.slot && other.segment !== undefined && isLastSegment(other),
  )!;
}
