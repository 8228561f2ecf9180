/**
 * Why the fields every protocol ignores are ignored (Python Relax `session/service.py`, seed 000
 * "Model API": fields outside the documented tables do not change generation).
 */
export const SAMPLING_FROM_ROLLOUT = "sampling parameters come from the rollout configuration";
export const NOT_SUPPORTED = "not supported by Relax; the field does not change generation";
export const USAGE_ALWAYS = "usage is always included";
