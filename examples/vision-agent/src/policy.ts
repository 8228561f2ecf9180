/**
 * The vision example's stand-in policy module for
 * `relax rollout --engine-policy examples/vision-agent/dist/policy.js`. A script, not a model.
 */
import { visionPolicy } from "./create-vision-policy";

export { visionPolicy as policy };
export default visionPolicy;
