import { AgentConfigError } from "../errors/agent-config-error";
import { ReservedEnvKeyError } from "../errors/reserved-env-key-error";

/** The environment-variable namespace Relax reserves for the agent process contract. */
export const RESERVED_ENV_PREFIX = "RELAX_";

const envKeyPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `--agent-env` settings: `KEY=VALUE` strings (as on the command line) or a key → value record.
 */
export type AgentEnvInput = readonly string[] | Readonly<Record<string, string>>;

/**
 * Parses `--agent-env` settings into a record. Strings split at the first `=` (the value may contain
 * more `=` and may be empty); a later duplicate key wins (see docs/contract.md#agent-process-contract).
 *
 * @param entries `KEY=VALUE` strings or a record.
 * @param options.path field path used in errors. @default "agentEnv"
 * @returns a fresh record of the settings, in first-seen key order.
 * @throws {AgentConfigError} an entry without `=`, an invalid key (not `[A-Za-z_][A-Za-z0-9_]*`) or a
 *   value that is not a string / contains a NUL byte.
 * @throws {ReservedEnvKeyError} a key starting with `RELAX_`.
 */
export function parseAgentEnv(
  entries: AgentEnvInput,
  { path = "agentEnv" }: { path?: string } = {},
): Record<string, string> {
  const result: Record<string, string> = {};
  if (Array.isArray(entries)) {
    entries.forEach((entry: unknown, index) => {
      const entryPath = `${path}[${index}]`;
      if (typeof entry !== "string") {
        throw new AgentConfigError({ path: entryPath, message: "expected a KEY=VALUE string" });
      }
      const separator = entry.indexOf("=");
      if (separator < 0) {
        throw new AgentConfigError({
          path: entryPath,
          message: `expected KEY=VALUE, got ${JSON.stringify(entry)}`,
        });
      }
      const key = entry.slice(0, separator);
      const value = entry.slice(separator + 1);
      checkEntry({ key, value, path: entryPath });
      delete result[key]; // last wins, and moves to the end like a re-export would
      result[key] = value;
    });
    return result;
  }
  for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
    const entryPath = `${path}.${key}`;
    if (typeof value !== "string") {
      throw new AgentConfigError({
        path: entryPath,
        message: `expected a string value, got ${typeof value}`,
      });
    }
    checkEntry({ key, value, path: entryPath });
    result[key] = value;
  }
  return result;
}

/**
 * Rejects any key in `env` that uses the reserved `RELAX_` prefix.
 *
 * @throws {ReservedEnvKeyError} naming `${path}.${key}`.
 */
export function assertNoReservedEnvKeys(env: Readonly<Record<string, string>>, path: string): void {
  for (const key of Object.keys(env)) {
    if (key.startsWith(RESERVED_ENV_PREFIX)) throw new ReservedEnvKeyError({ path: `${path}.${key}`, key });
  }
}

function checkEntry({ key, value, path }: { key: string; value: string; path: string }): void {
  if (!envKeyPattern.test(key)) {
    throw new AgentConfigError({
      path,
      message: `invalid variable name ${JSON.stringify(key)} (expected [A-Za-z_][A-Za-z0-9_]*)`,
    });
  }
  if (key.startsWith(RESERVED_ENV_PREFIX)) throw new ReservedEnvKeyError({ path, key });
  if (value.includes("\0")) throw new AgentConfigError({ path, message: "value contains a NUL byte" });
}
