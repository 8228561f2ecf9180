/**
 * The minimal example's stand-in policy module for
 * `relax rollout --engine-policy examples/minimal-agent/dist/policy.js`. A script, not a model.
 */
import { minimalPolicy } from "./create-minimal-policy";

export { minimalPolicy as policy };
export default minimalPolicy;
