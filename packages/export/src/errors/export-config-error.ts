import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

/**
 * One finding of {@link validateExportConfig}. `code` is stable for tests and tooling:
 * errors — `invalid_field`, `invalid_function_spec`, `missing_reward_source`,
 * `multi_context_without_custom_advantage`, `multi_context_without_dynamic_batching`,
 * `custom_advantage_with_reinforce_plus_plus_baseline`, `rloo_needs_two_samples`,
 * `group_rm_without_custom_rm`; warnings — `custom_rm_ignored_with_custom_advantage`,
 * `std_normalization_with_one_sample`, `debug_path_without_rollout_id`, `reward_object_without_key`.
 */
export interface ExportConfigIssue {
  severity: "error" | "warning";
  code: string;
  /** Field path in the config object, e.g. `customAdvantage`. */
  path: string;
  message: string;
}

const name = "ExportConfigError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * The export configuration cannot work: a reward source is missing, several contexts are configured
 * without a custom advantage function, a `module#export` path is malformed, and so on. Raised before any
 * agent runs (by {@link assertExportConfig} / {@link createExportPipeline}). `issues` lists every error
 * found, each with the field path and a message naming the `relax rollout` flag it corresponds to.
 */
export class ExportConfigError extends RelaxError {
  readonly [symbol] = true;
  /** Ends a command line with exit 2 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "config" as const;
  /** Every error-severity issue found (warnings are not included). */
  readonly issues: ExportConfigIssue[];

  constructor({ issues, cause }: { issues: ExportConfigIssue[]; cause?: unknown }) {
    super({
      name,
      message: `invalid export configuration:\n${issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join("\n")}`,
      cause,
    });
    this.issues = issues;
  }

  /** True for any `ExportConfigError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is ExportConfigError {
    return hasMarker(error, marker);
  }
}
