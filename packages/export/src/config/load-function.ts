import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { FunctionLoadError } from "../errors/function-load-error";
import { parseFunctionSpec } from "./function-spec";

/** Options of {@link loadFunction}. */
export interface LoadFunctionOptions {
  /** `module#export`, see {@link parseFunctionSpec}. */
  spec: string;
  /** Directory relative paths and package specifiers resolve from. @default process.cwd() */
  baseDir?: string;
}

/**
 * Imports a user function given as `module#export`. Relative paths resolve against `baseDir`; bare
 * specifiers resolve like `require.resolve` from `baseDir`, then fall back to a plain `import()`.
 * The module must be JavaScript Node can import (`.js`/`.mjs`; TypeScript needs a loader such as tsx).
 *
 * @throws FunctionLoadError for a malformed spec, an import failure, or an export that is not a function.
 */
export async function loadFunction<F extends (...args: never[]) => unknown>(
  options: LoadFunctionOptions,
): Promise<F> {
  const { spec, baseDir = process.cwd() } = options;
  let parsed: ReturnType<typeof parseFunctionSpec>;
  try {
    parsed = parseFunctionSpec(spec);
  } catch (error) {
    throw new FunctionLoadError({ spec, reason: (error as Error).message, cause: error });
  }
  const { module, exportName } = parsed;
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(moduleUrl(module, baseDir))) as Record<string, unknown>;
  } catch (error) {
    throw new FunctionLoadError({
      spec,
      reason: `import of "${module}" failed: ${(error as Error).message}`,
      cause: error,
    });
  }
  const value = namespace[exportName];
  if (typeof value !== "function") {
    const available = Object.keys(namespace).filter((key) => typeof namespace[key] === "function");
    throw new FunctionLoadError({
      spec,
      reason:
        value === undefined
          ? `"${module}" has no export "${exportName}" (function exports: ${available.join(", ") || "none"})`
          : `export "${exportName}" is a ${typeof value}, not a function`,
    });
  }
  return value as F;
}

function moduleUrl(module: string, baseDir: string): string {
  if (module.startsWith("file:")) return module;
  if (module.startsWith(".") || isAbsolute(module)) return pathToFileURL(resolve(baseDir, module)).href;
  try {
    return pathToFileURL(createRequire(resolve(baseDir, "__relax_resolve__.js")).resolve(module)).href;
  } catch {
    return module;
  }
}
