import type { StandinPolicy, StandinPolicyOutput } from "./standin-policy";

/** A policy that serves queued replies in order. */
export interface ScriptedPolicy extends StandinPolicy {
  /** Queues more replies. */
  push(...replies: StandinPolicyOutput[]): void;
  /** Replies not yet served. */
  remaining(): number;
}

/**
 * Serves `replies` in order, one per `/generate` request — the stand-in's "queued replies" for tests.
 * When the queue is empty: `"error"` makes the request fail (HTTP 500 naming the rid), `"repeat-last"`
 * serves the last reply again, `"cycle"` starts over.
 *
 * @example
 * const policy = scriptedPolicy(["<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n</tool_call>", "Done."]);
 */
export function scriptedPolicy(
  replies: readonly StandinPolicyOutput[],
  { whenExhausted = "error" }: { whenExhausted?: "error" | "repeat-last" | "cycle" } = {},
): ScriptedPolicy {
  const queue = [...replies];
  const served: StandinPolicyOutput[] = [];
  const policy = ((request) => {
    const next = queue.shift();
    if (next !== undefined) {
      served.push(next);
      return next;
    }
    if (whenExhausted === "repeat-last" && served.length > 0) return served[served.length - 1]!;
    if (whenExhausted === "cycle" && served.length > 0) {
      queue.push(...served.splice(0));
      const first = queue.shift()!;
      served.push(first);
      return first;
    }
    throw new Error(`scriptedPolicy: no scripted reply left for request ${request.rid}`);
  }) as ScriptedPolicy;
  policy.push = (...more) => {
    queue.push(...more);
  };
  policy.remaining = () => queue.length;
  return policy;
}
