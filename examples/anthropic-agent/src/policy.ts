/**
 * The stand-in policy for this example: the GSM8K policy of `@relax-examples/gsm8k-calculator` (the
 * gateway renders Anthropic requests with the same chat template, so the same script applies).
 * `relax rollout --engine-policy examples/anthropic-agent/dist/policy.js`. A script, not a model.
 */
export { default, policy } from "@relax-examples/gsm8k-calculator/policy";
