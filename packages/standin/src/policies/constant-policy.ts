import type { StandinPolicy, StandinPolicyOutput } from "./standin-policy";

/** Always replies with the same output (text or token ids). */
export function constantPolicy(output: StandinPolicyOutput): StandinPolicy {
  return () => output;
}
