/**
 * @module @relax-examples/minimal-agent
 * The seed's minimal agent application: one chat completion through the `openai` SDK.
 */

export { minimalPolicy } from "./create-minimal-policy";
export { DEFAULT_QUESTION, type RunMinimalAgentOptions, runMinimalAgent } from "./run-minimal-agent";
