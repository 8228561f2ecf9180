/**
 * The multi-agent stand-in policy module for `relax rollout --engine-policy examples/multi-agent/dist/policy.js`:
 * search calls for the main agent, short answers for searchers. A script, not a model.
 */
import { multiAgentPolicy } from "./create-multi-agent-policy";

export { multiAgentPolicy as policy };
export default multiAgentPolicy;
