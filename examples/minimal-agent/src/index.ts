/**
 * @module @relax-examples/minimal-agent
 * The seed's minimal agent application: one chat completion through the `openai` SDK.
 */
export { DEFAULT_QUESTION, type RunMinimalAgentOptions, runMinimalAgent } from "./run-minimal-agent";
