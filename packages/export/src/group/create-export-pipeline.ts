import type { ExportConfig, ExportConfigInput } from "../config/export-config";
import { type ExportFunctions, resolveExportFunctions } from "../config/resolve-export-functions";
import { validateExportConfig } from "../config/validate-export-config";
import type { ExportConfigIssue } from "../errors/export-config-error";
import { ExportConfigError } from "../errors/export-config-error";
import { exportGroup } from "./export-group";
import type { ExportMode, GroupExportInput, GroupExportOutcome } from "./group-export-outcome";

/** Options of {@link createExportPipeline}. */
export interface CreateExportPipelineOptions {
  /** The export configuration (validated here). */
  config: ExportConfigInput;
  /** Directory `module#export` paths resolve from. @default process.cwd() */
  baseDir?: string;
  /** Token decoder handed to reward functions (`promptText` / `responseText`). */
  decode?: (ids: number[]) => string;
}

/** A validated configuration with its user functions loaded. */
export interface ExportPipeline {
  readonly config: ExportConfig;
  readonly functions: ExportFunctions;
  /** Warning-severity issues found while validating the config (log them at startup). */
  readonly warnings: ExportConfigIssue[];
  /** {@link exportGroup} with this pipeline's config and functions. */
  exportGroup(group: GroupExportInput, options?: { mode?: ExportMode }): Promise<GroupExportOutcome>;
}

/**
 * Validates the config and loads its functions, so that every configuration problem surfaces before
 * any agent runs.
 *
 * @example
 * const pipeline = await createExportPipeline({ config: { nSamplesPerPrompt: 8, agentWritesReward: true } });
 * const outcome = await pipeline.exportGroup({ groupIndex: 0, sessions });
 * if (outcome.kind === "exported") await writeTrainingRowsFile({ path: "rows.jsonl", rows: outcome.rows, append: true });
 *
 * @throws ExportConfigError listing every configuration error.
 * @throws FunctionLoadError when a `module#export` cannot be loaded.
 */
export async function createExportPipeline(options: CreateExportPipelineOptions): Promise<ExportPipeline> {
  const { baseDir, decode } = options;
  const validation = validateExportConfig(options.config);
  if (!validation.ok || validation.config === undefined) {
    throw new ExportConfigError({ issues: validation.issues.filter((issue) => issue.severity === "error") });
  }
  const config = validation.config;
  const functions = await resolveExportFunctions(config, baseDir === undefined ? {} : { baseDir });
  return {
    config,
    functions,
    warnings: validation.issues.filter((issue) => issue.severity === "warning"),
    exportGroup: (group, { mode = "train" } = {}) =>
      exportGroup({ group, config, functions, mode, ...(decode ? { decode } : {}) }),
  };
}
