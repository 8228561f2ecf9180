import type { AdvantageFunction } from "../credit/advantage-function";
import type { SideCreditFunction } from "../credit/side-credit-function";
import type { GroupRewardFunction, RewardFunction } from "../reward/reward-function";
import type { ExportConfig } from "./export-config";
import { loadFunction } from "./load-function";

/** The user functions an export pipeline calls, loaded from the config. */
export interface ExportFunctions {
  /** Per-sample reward function (`customRm` without `groupRm`). */
  reward?: RewardFunction;
  /** Group reward function (`customRm` with `groupRm`). */
  groupReward?: GroupRewardFunction;
  /** Custom advantage function (`customAdvantage`). */
  advantage?: AdvantageFunction;
  /** Side-context credit function (`sideCredit`, docs/contract.md#side-contexts). */
  sideCredit?: SideCreditFunction;
}

/**
 * Loads the config's `module#export` strings (functions given directly are used as they are). Call it
 * at startup so that a missing module fails before any agent runs.
 * @throws FunctionLoadError when a module or export cannot be loaded.
 */
export async function resolveExportFunctions(
  config: Pick<ExportConfig, "customRm" | "groupRm" | "customAdvantage"> &
    Partial<Pick<ExportConfig, "sideCredit">>,
  { baseDir }: { baseDir?: string } = {},
): Promise<ExportFunctions> {
  const load = async <F extends (...args: never[]) => unknown>(value: unknown): Promise<F | undefined> => {
    if (value === undefined) return undefined;
    if (typeof value === "function") return value as F;
    return loadFunction<F>({ spec: value as string, ...(baseDir === undefined ? {} : { baseDir }) });
  };
  const functions: ExportFunctions = {};
  const rm = await load<RewardFunction>(config.customRm);
  if (rm !== undefined) {
    if (config.groupRm) functions.groupReward = rm as unknown as GroupRewardFunction;
    else functions.reward = rm;
  }
  const advantage = await load<AdvantageFunction>(config.customAdvantage);
  if (advantage !== undefined) functions.advantage = advantage;
  const sideCredit = await load<SideCreditFunction>(config.sideCredit);
  if (sideCredit !== undefined) functions.sideCredit = sideCredit;
  return functions;
}
