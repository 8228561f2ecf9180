/**
 * Entry point of the minimal agent: `node examples/minimal-agent/dist/agent.js ["question"]`.
 * Relax runs it with the agent process contract; run alone it uses `OPENAI_*` variables.
 */
import { runMinimalAgent } from "./run-minimal-agent";

try {
  await runMinimalAgent({ argv: process.argv.slice(2) });
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
