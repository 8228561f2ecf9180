import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { echoPolicy } from "./policies/echo-policy";
import type { StandinPolicy } from "./policies/standin-policy";

/** Policies the CLI knows by name. */
export const BUILTIN_POLICIES: Readonly<Record<string, () => StandinPolicy>> = {
  echo: () => echoPolicy({ prefix: "You said: " }),
};

/**
 * Loads a policy from a spec:
 * - a built-in name (`echo`);
 * - `<module>[#<export>]`: a file path (relative to `cwd`) or a package specifier, and the name of the
 *   export holding the policy function (default: `default`).
 *
 * @throws Error naming the spec when the module cannot be imported or the export is not a function.
 * @example
 * await loadStandinPolicy("./policies/math.js#mathPolicy");
 */
export async function loadStandinPolicy(
  spec: string,
  { cwd = process.cwd() }: { cwd?: string } = {},
): Promise<StandinPolicy> {
  const builtin = BUILTIN_POLICIES[spec];
  if (builtin) return builtin();
  const hash = spec.lastIndexOf("#");
  const modulePart = hash >= 0 ? spec.slice(0, hash) : spec;
  const exportName = hash >= 0 ? spec.slice(hash + 1) : "default";
  const looksLikePath =
    modulePart.startsWith(".") || isAbsolute(modulePart) || /\.[cm]?[jt]s$/.test(modulePart);
  const specifier = looksLikePath ? pathToFileURL(resolve(cwd, modulePart)).href : modulePart;
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `--policy ${spec}: cannot import ${modulePart}: ${error instanceof Error ? error.message : error}`,
      {
        cause: error,
      },
    );
  }
  const policy = loaded[exportName];
  if (typeof policy !== "function") {
    throw new Error(
      `--policy ${spec}: export "${exportName}" of ${modulePart} is ${typeof policy}, expected a policy function ` +
        `(exports: ${Object.keys(loaded).sort().join(", ") || "none"})`,
    );
  }
  return policy as StandinPolicy;
}
