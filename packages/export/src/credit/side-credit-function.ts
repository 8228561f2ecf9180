import { formatFieldPath } from "@relax/chat";
import { z } from "zod";

/** What a side-credit function sees for one side context (a copy; mutating it changes nothing). */
export interface SideCreditInput {
  /** The side request class: `compaction`, `subagent`, `title`, `summary`, … */
  requestClass: string;
  /** The side context's name in the session (`<class>:<i>`, in commit order). */
  name: string;
  sessionId: string;
  /** Position of the session in its Group. */
  slot: number;
  groupIndex: number;
  stateHash: string;
  /** The main-forest response the side request came after (its parent turn), when there was one. */
  parentStateHash?: string;
  numTurns: number;
  /** Generated tokens of the side context (`sum(loss_mask)`). */
  generatedTokens: number;
  /** The session's main context the default rule credits from: its reward, advantage and metadata. */
  main: {
    name: string | null;
    reward: number | null;
    advantage: number;
    metadata: Record<string, unknown>;
  };
  /** The rewards and advantages of every main context of the Group, in sampled order. */
  group: Array<{ sessionId: string; reward: number | null; advantage: number }>;
}

/**
 * What a side-credit function returns: the side context's advantage (a finite number), or
 * `{advantage, reward?}` to set its reward too (`reward` defaults to the main context's).
 */
export type SideCreditResult = number | { advantage: number; reward?: number | null };

/**
 * A user function (`--request-class-credit-path module#export`) that credits side contexts instead of the
 * default rule (the main context's reward and advantage). Called once per side context, after the
 * Group's own credit; may be async. A throw or a malformed result drops the Group
 * (`side_credit_function_error`).
 */
export type SideCreditFunction = (input: SideCreditInput) => SideCreditResult | Promise<SideCreditResult>;

const sideCreditResultSchema = z.union([
  z.number().finite(),
  z.strictObject({ advantage: z.number().finite(), reward: z.number().finite().nullable().optional() }),
]);

/**
 * Checks a side-credit function's result.
 * @throws TypeError naming the field path (`result.advantage: …`) for a non-finite number or a wrong shape.
 */
export function validateSideCreditResult(result: unknown): {
  advantage: number;
  reward?: number | null | undefined;
} {
  const parsed = sideCreditResultSchema.safeParse(result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const inner =
      issue.code === "invalid_union" && typeof result === "object" && result !== null
        ? (issue.errors[1]?.[0] ?? issue)
        : issue;
    const reason =
      inner === issue
        ? "must be a finite number or {advantage: number, reward?: number | null}"
        : inner.message;
    throw new TypeError(`${formatFieldPath(inner.path, "result")}: ${reason}`);
  }
  return typeof parsed.data === "number" ? { advantage: parsed.data } : parsed.data;
}
