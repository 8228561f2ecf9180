import { AgentConfigError } from "../errors/agent-config-error";

/**
 * Variables an agent inherits from the launcher by default (`--agent-env-inherit default`): what a
 * shell and common runtimes need to work, nothing that usually carries a secret. `LC_*` matches every
 * locale category. See docs/security.md#environment.
 */
export const DEFAULT_INHERITED_ENV: readonly string[] = Object.freeze([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TZ",
  "TERM",
  "TMPDIR",
]);

/**
 * Which of the launcher's variables an agent inherits (`--agent-env-inherit`):
 * - `"all"`: every variable (the old behaviour; secrets included);
 * - `"none"`: nothing (only `--agent-env`, the harness's variables and the `RELAX_*` contract);
 * - a list of names, where `PREFIX*` matches by prefix and `default` stands for
 *   {@link DEFAULT_INHERITED_ENV}.
 */
export type AgentEnvInheritPolicy = "all" | "none" | readonly string[];

const namePattern = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/**
 * Parses `--agent-env-inherit`: `all`, `none`, or a comma-separated list of names (`PREFIX*` patterns
 * and the word `default` allowed), e.g. `default,PYTHONPATH,HF_HOME`.
 *
 * @param text the option's value.
 * @param options.path field path used in errors. @default "agentEnvInherit"
 * @returns `"all"`, `"none"` or the list (with `default` kept as a word; see {@link selectInheritedEnv}).
 * @throws {AgentConfigError} an empty value, an invalid name, or `all`/`none` mixed with names.
 */
export function parseAgentEnvInherit(
  text: string,
  { path = "agentEnvInherit" }: { path?: string } = {},
): AgentEnvInheritPolicy {
  const trimmed = typeof text === "string" ? text.trim() : "";
  if (trimmed === "all" || trimmed === "none") return trimmed;
  const names = trimmed
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) {
    throw new AgentConfigError({ path, message: "expected all, none or a comma-separated list of names" });
  }
  names.forEach((name, index) => {
    if (name === "all" || name === "none") {
      throw new AgentConfigError({
        path: `${path}[${index}]`,
        message: `${name} cannot be combined with names`,
      });
    }
    if (name !== "default" && !namePattern.test(name)) {
      throw new AgentConfigError({
        path: `${path}[${index}]`,
        message: `expected a variable name or PREFIX*, got ${JSON.stringify(name)}`,
      });
    }
  });
  return Object.freeze(names);
}

/**
 * The part of `env` an agent inherits under `policy` (undefined values dropped). `RELAX_*` variables of
 * the launcher are never inherited: the contract sets its own.
 *
 * @param policy @default ["default"] ({@link DEFAULT_INHERITED_ENV})
 */
export function selectInheritedEnv(
  env: Readonly<Record<string, string | undefined>>,
  policy: AgentEnvInheritPolicy = ["default"],
): Record<string, string> {
  const result: Record<string, string> = {};
  if (policy === "none") return result;
  const patterns =
    policy === "all" ? null : policy.flatMap((name) => (name === "default" ? DEFAULT_INHERITED_ENV : [name]));
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || key.startsWith("RELAX_")) continue;
    if (patterns === null || patterns.some((pattern) => matches(pattern, key))) result[key] = value;
  }
  return result;
}

const secretPattern = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|PRIVATE|(^|_)PAT($|_)/i;

/**
 * Names (sorted) in `env` that look like they hold a secret (`*TOKEN*`, `*KEY*`, `*SECRET*`,
 * `*PASSWORD*`, `*CREDENTIAL*`, `*AUTH*`, …). Used for the start-up warning: only names, never values.
 */
export function findSecretLookingNames(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env)
    .filter((key) => env[key] !== undefined && secretPattern.test(key))
    .sort();
}

function matches(pattern: string, key: string): boolean {
  return pattern.endsWith("*") ? key.startsWith(pattern.slice(0, -1)) : key === pattern;
}
