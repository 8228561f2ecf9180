import { parseRequestClassPolicies } from "@relax/agent-api";

/**
 * Folds `--request-class-policy CLASS=POLICY` (repeatable; config key `request-class-policy`, a list)
 * into `requestClasses.policies`, over the config file's `request-classes.policies`. Mutates `merged`
 * (the merged file + flag values, `requestClasses` already camelCased).
 *
 * @throws TypeError `--request-class-policy: …` (the caller reports it as a ConfigError) for an entry that is not `CLASS=POLICY` with a known
 *   class and policy.
 */
export function applyRequestClassPolicyFlag(merged: Record<string, unknown>): void {
  const entries = merged.requestClassPolicy;
  if (entries === undefined) return;
  if (!Array.isArray(entries) || entries.some((entry) => typeof entry !== "string")) {
    throw new TypeError("--request-class-policy: must be a list of CLASS=POLICY strings");
  }
  let policies: ReturnType<typeof parseRequestClassPolicies>;
  try {
    policies = parseRequestClassPolicies(entries as string[]);
  } catch (error) {
    throw new TypeError(`--request-class-policy: ${(error as Error).message}`);
  }
  const section =
    typeof merged.requestClasses === "object" && merged.requestClasses !== null
      ? (merged.requestClasses as Record<string, unknown>)
      : {};
  const filePolicies =
    typeof section.policies === "object" && section.policies !== null ? section.policies : {};
  merged.requestClasses = { ...section, policies: { ...filePolicies, ...policies } };
}
