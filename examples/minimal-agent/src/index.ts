/**
 * @module @relax-examples/minimal-agent
 * A minimal agent application: one chat completion through the `openai` SDK (see
 * docs/contract.md#agent-process-contract).
 */

export { minimalPolicy } from "./create-minimal-policy";
export { DEFAULT_QUESTION, type RunMinimalAgentOptions, runMinimalAgent } from "./run-minimal-agent";
