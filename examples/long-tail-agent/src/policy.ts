/**
 * The long-tail example's stand-in policy module for
 * `relax rollout --engine-policy examples/long-tail-agent/dist/policy.js`. A script, not a model.
 */
import { longTailPolicy } from "./create-long-tail-policy";

export { longTailPolicy as policy };
export default longTailPolicy;
