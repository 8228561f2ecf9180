import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";
import type { ExportConfigIssue } from "../config/validate-export-config";

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
