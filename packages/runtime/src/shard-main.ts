// A gateway shard (`--gateway-shards`): the entry module `ShardPool` forks. It builds the shard's turn
// settings and text stack from the run's configuration and serves with `runGatewayShard` of
// `@relax/agent-api`. See docs/architecture.md#gateway-shards.
import { runGatewayShard } from "@relax/agent-api";
import type { RolloutConfig } from "./config/rollout-config";
import { agentApiSettings, planRolloutComponents } from "./plan/plan-rollout-components";
import { loadTextStack } from "./text/load-text-stack";

runGatewayShard(async (init) => {
  const components = planRolloutComponents(init.config as RolloutConfig, { cwd: init.cwd });
  const text = await loadTextStack(components, {
    offload: true,
    workers: init.encodeWorkers,
    maxWorkers: Math.max(init.encodeWorkers, init.encodeMaxWorkers),
  });
  return {
    settings: agentApiSettings(components),
    text,
    engineSessions: components.backend.engineSessions,
    engineFaults: components.engineFaults,
    host: components.gateway.host,
  };
});
