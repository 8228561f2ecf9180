import { ExportConfigError, type ExportConfigIssue } from "../errors/export-config-error";
import { type ExportConfig, exportConfigSchema } from "./export-config";
import { functionSpecIssues, recipeErrors, recipeWarnings, shapeIssues } from "./export-config-issues";

/** Result of {@link validateExportConfig}: the parsed config when the shape is valid, and every issue. */
export interface ExportConfigValidation {
  /** Present when the shape parsed (semantic errors may still be listed in `issues`). */
  config?: ExportConfig;
  issues: ExportConfigIssue[];
  /** True when no issue has severity `error`. */
  ok: boolean;
}

/**
 * Checks an export configuration before any agent runs. Pure: no imports, no I/O (function specs are
 * checked for syntax only; {@link resolveExportFunctions} imports them). Catches, besides bad field
 * types: a single-context recipe with no reward source (the agent does not write `reward`, and there
 * is no `customRm`), a multi-context recipe without `customAdvantage` or without dynamic batching, custom
 * advantage with `reinforce_plus_plus_baseline`, `rloo` with one sample.
 * @see docs/contract.md#export-records, docs/contract.md#reward, docs/contract.md#advantage
 */
export function validateExportConfig(input: unknown): ExportConfigValidation {
  const parsed = exportConfigSchema.safeParse(input);
  if (!parsed.success) return { issues: shapeIssues(parsed.error.issues), ok: false };
  const config = parsed.data;
  const issues = [...functionSpecIssues(config), ...recipeErrors(config), ...recipeWarnings(config)];
  return { config, issues, ok: !issues.some((issue) => issue.severity === "error") };
}

/**
 * {@link validateExportConfig}, throwing on errors.
 * @throws ExportConfigError listing every error-severity issue.
 */
export function assertExportConfig(input: unknown): ExportConfig {
  const result = validateExportConfig(input);
  if (!result.ok || result.config === undefined) {
    throw new ExportConfigError({ issues: result.issues.filter((issue) => issue.severity === "error") });
  }
  return result.config;
}
