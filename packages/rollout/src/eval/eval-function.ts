import { FunctionLoadError, loadFunction, type TrainingRow } from "@relax/export";
import { z } from "zod";
import type { PromptItem } from "../dataset/prompt-dataset";
import { EvalFunctionError, EVAL_FUNCTION_FLAG as FLAG } from "../errors/eval-function-error";

/** The flag (and config field) that names the eval function, for error messages. */

/**
 * What the eval function is called with: one eval dataset's finished eval step (`--eval-prompt-data`
 * NAME), after every Group of it ended.
 */
export interface EvalFunctionInput {
  /** The eval's label (slime's `rollout_id`: the train step just trained). */
  rolloutId: number;
  /** The eval dataset's name (the `eval/<name>/` metric prefix). */
  dataset: string;
  /** The dataset's prompts; `rows[i].prompt_index` indexes them (`prompts[k].index === k`). */
  prompts: readonly PromptItem[];
  /** The eval rows (one per exported context; `reward`, `status`, `metadata`, `tokens` …), in export order. */
  rows: readonly TrainingRow[];
  /** Relax's own metrics of the step (`eval/<name>/…` keys), as they would be reported without the function. */
  metrics: Readonly<Record<string, number>>;
}

/** Per-key eval data of {@link EvalFunctionResult}: slime's `RolloutFnEvalOutput.data[key]`. */
const evalDataSchema = z.object({
  /** One reward per evaluated sample; `eval/<key>` is their mean. */
  rewards: z.array(z.number().finite()).min(1),
  /** Whether each sample was truncated; `eval/<key>-truncated_ratio` is the share of `true`. */
  truncated: z.array(z.boolean()).min(1).optional(),
});

/**
 * What the eval function returns, validated: slime's `RolloutFnEvalOutput` (`data` keyed by eval name,
 * `metrics` extra metrics logged as they are). Either part may be left out.
 */
export const evalFunctionResultSchema = z.strictObject({
  data: z.record(z.string().min(1), evalDataSchema).optional(),
  metrics: z.record(z.string().min(1), z.number().finite()).optional(),
});
export type EvalFunctionResult = z.infer<typeof evalFunctionResultSchema>;

/** A user eval function (`--eval-function-path module#export`); may be async. */
export type EvalFunction = (input: EvalFunctionInput) => EvalFunctionResult | Promise<EvalFunctionResult>;

/** A loaded eval function with the spec it came from (for messages). */
export interface LoadedEvalFunction {
  spec: string;
  fn: EvalFunction;
}

/**
 * Loads `--eval-function-path` (`module#export`, default export without `#`; see `loadFunction`). Call it
 * at startup so that a missing module fails before any agent runs.
 * @throws FunctionLoadError (its reason naming the flag) for a malformed spec, an import failure or an
 *   export that is not a function
 */
export async function loadEvalFunction(spec: string, baseDir: string): Promise<LoadedEvalFunction> {
  try {
    return { spec, fn: await loadFunction<EvalFunction>({ spec, baseDir }) };
  } catch (error) {
    if (!FunctionLoadError.isInstance(error)) throw error;
    throw new FunctionLoadError({ spec, reason: `${error.reason} (${FLAG})`, cause: error.cause });
  }
}

/**
 * Calls the eval function and validates what it returns.
 * @returns the validated result (slime's `RolloutFnEvalOutput` shape)
 * @throws EvalFunctionError when the function throws or returns an invalid result
 */
export async function runEvalFunction(
  loaded: LoadedEvalFunction,
  input: EvalFunctionInput,
): Promise<EvalFunctionResult> {
  const { spec } = loaded;
  const { dataset } = input;
  let returned: unknown;
  try {
    returned = await loaded.fn(input);
  } catch (error) {
    throw new EvalFunctionError({ spec, dataset, reason: `threw: ${String(error)}`, cause: error });
  }
  const parsed = evalFunctionResultSchema.safeParse(returned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join(".");
    throw new EvalFunctionError({
      spec,
      dataset,
      path,
      reason: `returned an invalid result at ${path === "" ? "(root)" : path}: ${issue.message} (expected { data?: { [name]: { rewards: number[], truncated?: boolean[] } }, metrics?: { [key]: number } })`,
    });
  }
  return parsed.data;
}

/**
 * The metrics of an eval function's result, the way slime's `log_eval_rollout_data` computes them: for each
 * `data` key, `eval/<key>` = mean of `rewards` and (with `truncated`) `eval/<key>-truncated_ratio` = share
 * of `true`; `metrics` entries are taken as they are (slime's `extra_metrics`; a key set there wins). Pass-rate
 * metrics (`--log-passrate`) of `data` are not computed (Relax's own `eval/<name>/…` pass rates stay).
 */
export function evalFunctionMetrics(result: EvalFunctionResult): Record<string, number> {
  const metrics: Record<string, number> = {};
  for (const [key, data] of Object.entries(result.data ?? {})) {
    metrics[`eval/${key}`] = mean(data.rewards);
    if (data.truncated !== undefined) {
      metrics[`eval/${key}-truncated_ratio`] = mean(data.truncated.map((value) => (value ? 1 : 0)));
    }
  }
  return { ...metrics, ...result.metrics };
}

/**
 * {@link runEvalFunction}, then {@link evalFunctionMetrics}.
 * @returns the metrics to merge over `input.metrics`
 * @throws EvalFunctionError when the function throws or returns an invalid result
 */
export async function applyEvalFunction(
  loaded: LoadedEvalFunction,
  input: EvalFunctionInput,
): Promise<Record<string, number>> {
  return evalFunctionMetrics(await runEvalFunction(loaded, input));
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}
