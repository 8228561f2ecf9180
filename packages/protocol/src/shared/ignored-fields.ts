/**
 * Why the fields every protocol ignores are ignored (fields outside the documented tables do not change
 * generation; see docs/contract.md#rules-for-every-request).
 */
export const SAMPLING_FROM_ROLLOUT = "sampling parameters come from the rollout configuration";
export const NOT_SUPPORTED = "not supported by Relax; the field does not change generation";
export const USAGE_ALWAYS = "usage is always included";
