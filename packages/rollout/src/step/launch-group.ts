import type { EngineHealth } from "../engine/engine-health";
import { internalErrorResult } from "../group/group-outcome";
import { type GroupContext, type GroupResult, type RunGroupOptions, runGroup } from "../group/run-group";

/** What every Group a step starts runs on: the run's Group context and its engine health. */
export interface GroupLauncher {
  group: GroupContext;
  /** Groups wait for the engine's health before they start; backend drops are classified. */
  engineHealth?: EngineHealth | undefined;
}

/**
 * Runs one Group as train and eval steps both do: during an engine outage it waits for the engine's health
 * before its agents start (`waitSignal` ends the wait), its result is classified by engine health (a drop the
 * backend caused becomes `backend_<reason>`), and a throw ends it dropped `internal_error`.
 */
export function launchGroup(
  launcher: GroupLauncher,
  options: RunGroupOptions,
  waitSignal: AbortSignal | undefined,
): Promise<GroupResult> {
  const { engineHealth } = launcher;
  const { prompt, groupIndex: slot, rolloutId } = options;
  const run = () => runGroup(launcher.group, options);
  const started = engineHealth
    ? engineHealth.runWhenHealthy(run, { signal: waitSignal, prompt, slot, rolloutId })
    : run();
  return started
    .then((result) => engineHealth?.classify(result) ?? result)
    .catch((error: unknown): GroupResult => internalErrorResult(`g${rolloutId}-${slot}`, prompt, error));
}
