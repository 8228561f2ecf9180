import type { AgentApiEvents } from "@relax/agent-api";
import type { EngineHealth, RunReporter } from "@relax/rollout";
import type { Logger } from "pino";
import type { RolloutComponents } from "../plan/plan-rollout-components";

/** Top-level fields carrying a structured-output format (`contract-change` warnings name them). */
const STRUCTURED_OUTPUT_FIELDS: ReadonlySet<string> = new Set([
  "response_format",
  "text",
  "output_config",
  "output_format",
]);

/**
 * The run's handling of what the agent-facing API reports: turn metrics and parse issues to the
 * reporter, engine outages to {@link EngineHealth}, request classes at DEBUG, contract changes at WARN
 * once per field and run (counted every time), every refusal at WARN with its session, path and status.
 * One instance per run: a sharded gateway's controller feeds it every shard's events, so the WARN-once
 * rule holds across shards.
 */
export function createRunEvents(options: {
  logger: Logger;
  reporter: RunReporter;
  engineHealth: EngineHealth;
  components: RolloutComponents;
}): AgentApiEvents {
  const { logger, reporter, engineHealth, components } = options;
  // Fields whose contract Relax does not honour: WARN once per field and run, counted every time.
  const contractWarned = new Set<string>();
  const noticed = new Set<string>();
  return {
    turn: (event) => {
      reporter.turnFinished(event);
      if (event.classification !== undefined) {
        const { requestClass, harness, rule } = event.classification;
        const policy = components.turns.classifier.policyOf(requestClass);
        logger.debug(
          {
            session: event.sessionId,
            request_class: requestClass,
            harness,
            rule,
            policy,
            turn: event.turnId,
          },
          "request classified",
        );
      }
      if (event.error !== undefined) {
        engineHealth.noteTurnError(event.sessionId, event.error);
        logger.debug({ session: event.sessionId, err: String(event.error) }, "turn failed");
      }
      if (event.issues !== undefined) {
        reporter.parseIssues(event.issues.map((issue) => issue.kind));
        for (const issue of event.issues) {
          logger.warn({ session: event.sessionId, turn: event.turnId, kind: issue.kind }, issue.message);
        }
      }
    },
    notice: (notice) => {
      if (noticed.has(notice.code)) return;
      noticed.add(notice.code);
      logger.warn({ code: notice.code }, notice.message);
    },
    warning: (warning, context) => {
      // Structured-output fields are honoured (json_schema) unless --no-honor-response-format: then the
      // protocol's "not honoured" warning is true, otherwise it is not logged at all.
      const honoured = components.turns.honorResponseFormat && STRUCTURED_OUTPUT_FIELDS.has(warning.path);
      if (honoured) return;
      if (warning.type !== "contract-change") {
        logger.debug({ protocol: context.protocol, session: context.session, ...warning }, "request warning");
        return;
      }
      reporter.contractChanged(warning.path);
      if (contractWarned.has(warning.path)) return;
      contractWarned.add(warning.path);
      logger.warn(
        { protocol: context.protocol, session: context.session, path: warning.path },
        `${warning.message} (logged once per run${STRUCTURED_OUTPUT_FIELDS.has(warning.path) ? "; --no-honor-response-format is set: JSON schemas are not passed to SGLang" : ""})`,
      );
    },
    refusal: (event) => {
      reporter.requestRefused(event.status);
      logger.warn(
        { session: event.sessionId, group: event.group, path: event.path, status: event.status },
        `request refused: ${event.status} ${event.message}`,
      );
    },
  };
}
