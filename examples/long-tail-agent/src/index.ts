/**
 * @module @relax-examples/long-tail-agent
 * A heavy-tailed agent for cross-step scheduling (prelaunch, partial rollout, fully async): a lognormal
 * number of turns with lognormal tool latencies between them, seeded (see
 * docs/contract.md#cross-step-scheduling).
 */

export { createLongTailPolicy, type LongTailPolicyOptions, longTailPolicy } from "./create-long-tail-policy";
export {
  DEFAULT_LONG_TAIL,
  drawLongTail,
  type LongTailParams,
  type LongTailPlan,
  seededUniforms,
} from "./draw-long-tail";
export { longTailKey, longTailParamsFromEnv, runLongTailAgent } from "./run-long-tail-agent";
export {
  type ChatMessage,
  type LongTailSessionOptions,
  type LongTailSessionResult,
  runLongTailSession,
} from "./run-long-tail-session";
