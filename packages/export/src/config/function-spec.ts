/** A parsed `module#export` function spec. */
export interface FunctionSpec {
  /** A file path (`./x.mjs`, `/abs/x.js`, `file:` URL) or a package specifier. */
  module: string;
  /** The export name; `default` when the spec has no `#`. */
  exportName: string;
}

/**
 * Parses `module#export` (`--custom-rm-path`, `--agentic-custom-advantage-path`). A JavaScript module path
 * can contain dots, so `#` separates the export rather than a dotted `pkg.module.func` path. Without `#`
 * the module's default export is used (see docs/contract.md#custom-advantage).
 *
 * @throws TypeError naming what is wrong (empty module, empty export, more than one `#`).
 */
export function parseFunctionSpec(spec: string): FunctionSpec {
  const parts = spec.split("#");
  if (parts.length > 2) throw new TypeError(`"${spec}" has more than one "#"; expected "module#export"`);
  const module = parts[0]!.trim();
  if (module === "") throw new TypeError(`"${spec}" has an empty module part; expected "module#export"`);
  if (parts.length === 1) return { module, exportName: "default" };
  const exportName = parts[1]!.trim();
  if (exportName === "") throw new TypeError(`"${spec}" has an empty export name after "#"`);
  return { module, exportName };
}
