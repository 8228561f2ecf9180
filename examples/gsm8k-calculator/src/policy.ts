/**
 * The GSM8K stand-in policy module for `relax rollout --engine-policy examples/gsm8k-calculator/dist/policy.js`.
 * A deterministic script that plays the model on the stand-in engine; not a model.
 */
import { gsm8kPolicy } from "./create-gsm8k-policy";

export { gsm8kPolicy as policy };
export default gsm8kPolicy;
