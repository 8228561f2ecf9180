import { alignTurnRewards, TurnRewardsError } from "../rows/turn-rewards";
import { isLastSegment } from "./group-contexts";
import type { GroupDrop } from "./group-drop";
import type { ExportedContext } from "./group-export-outcome";

/**
 * Aligns every context's per-turn rewards (`turnRewardsSource`, from the agent output or a reward object)
 * to its turns, in place (`turnRewards`). The segments of one implicit export (compaction segments, agent
 * contexts) share their last segment's value, indexed over the segments' turns in order. Side contexts
 * have none.
 *
 * @returns a drop (`invalid_turn_rewards`, the message naming the field path) when a value does not fit.
 * @throws whatever alignment throws that is not a {@link TurnRewardsError}.
 */
export function applyTurnRewards(contexts: readonly ExportedContext[]): GroupDrop | undefined {
  for (const context of contexts) {
    if (context.requestClass !== undefined) continue;
    const segments =
      context.segment === undefined
        ? [context]
        : contexts.filter((other) => other.slot === context.slot && other.segment !== undefined);
    const source = segments.find((segment) => isLastSegment(segment))?.turnRewardsSource;
    if (source === undefined) continue;
    const offset = segments
      .slice(0, segments.indexOf(context))
      .reduce((sum, segment) => sum + segment.sample.turns.length, 0);
    const totalTurns = segments.reduce((sum, segment) => sum + segment.sample.turns.length, 0);
    try {
      context.turnRewards = alignTurnRewards({ ...source, sample: context.sample, offset, totalTurns });
    } catch (error) {
      if (!(error instanceof TurnRewardsError)) throw error;
      return {
        reason: "invalid_turn_rewards",
        message: `session ${context.sessionId}: ${error.message}`,
        cause: error,
      };
    }
  }
  return undefined;
}
