import { existsSync } from "node:fs";
import { resolve } from "node:path";

/**
 * Makes the module part of a `module#export` spec absolute when it names an existing file relative to
 * `baseDir` (so `examples/x/dist/policy.js` works without a leading `./`); package names stay as they are.
 */
export function resolveModuleSpec(spec: string, baseDir: string): string {
  const hash = spec.indexOf("#");
  const module = hash < 0 ? spec : spec.slice(0, hash);
  const rest = hash < 0 ? "" : spec.slice(hash);
  const candidate = resolve(baseDir, module.trim());
  return existsSync(candidate) ? `${candidate}${rest}` : spec;
}
