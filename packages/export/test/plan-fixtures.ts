/**
 * Hand-built session plans and contexts for the unit tests of the Group pipeline's steps (no forest, no
 * tokenizer): a sample holds only `tokens` and `promptLength`, which is all those steps read.
 */
import type { TrainingSample } from "@relax/forest";
import type { ExportedContext } from "../src/group/group-export-outcome";
import type { PlannedContext, SessionExportPlan } from "../src/plan/plan-session-export";
import type { RewardValue } from "../src/plan/session-output-like";

/** A sample with `tokens` and `promptLength` only. */
export function fakeSample(tokens: number[] = [1, 2, 3, 4], promptLength = 2): TrainingSample {
  return { tokens, promptLength } as unknown as TrainingSample;
}

/** A planned context named `name` with `reward` (path `records[i].reward` or `output.reward`). */
export function plannedContext(
  name: string | null,
  reward: RewardValue,
  extra: Partial<PlannedContext> = {},
): PlannedContext {
  return {
    name,
    stateHash: `hash-${name}`,
    metadata: { name },
    reward,
    rewardPath: name === null ? "output.reward" : `records[${name}].reward`,
    sample: fakeSample(),
    ...extra,
  };
}

/** An ok plan of session `sessionId` exporting `contexts`. */
export function okPlan(sessionId: string, contexts: PlannedContext[]): SessionExportPlan {
  return { ok: true, sessionId, kind: contexts[0]?.name === null ? "implicit" : "explicit", contexts };
}

/** A pipeline context (reward and advantage unset unless given). */
export function exportedContext(slot: number, extra: Partial<ExportedContext> = {}): ExportedContext {
  return {
    sessionId: `s${slot}`,
    slot,
    groupIndex: 0,
    name: null,
    key: "null",
    stateHash: `hash-${slot}`,
    sample: fakeSample(),
    metadata: {},
    exportedReward: null,
    reward: null,
    rewardDetails: {},
    advantage: null,
    ...extra,
  };
}
