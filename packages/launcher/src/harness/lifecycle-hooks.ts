import type { AgentOutcome } from "../outcome/agent-outcome";
import type { HarnessContext } from "./agent-harness";

/**
 * Pluggable steps around an agent run (collect framework logs, score in the sandbox, report metrics...).
 * Hooks run one after another in the configured order.
 * - `beforeRun`: after `harness.prepare`, before the process starts; a throw aborts the launch.
 * - `afterRun`: after a successful run and output parsing; a throw turns into an infrastructure error.
 * - `onError`: after a failure (agent failure, timeout, invalid output, or an infrastructure error);
 *   a throwing `onError` hook is reported as a warning and never hides the original error.
 * A session terminated by its controller runs neither `afterRun` nor `onError`, only cleanup.
 * @see docs/contract.md#agent-harness
 */
export interface LifecycleHooks {
  /** Name for warnings. */
  readonly name?: string;
  beforeRun?(context: HarnessContext): void | Promise<void>;
  afterRun?(
    context: HarnessContext,
    outcome: Extract<AgentOutcome, { status: "succeeded" }>,
  ): void | Promise<void>;
  onError?(context: HarnessContext, error: unknown): void | Promise<void>;
}
