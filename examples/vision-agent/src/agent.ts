/**
 * Entry point of the vision agent: `node examples/vision-agent/dist/agent.js`, started by Relax with
 * the agent process contract (`RELAX_INPUT_JSON`, `RELAX_BASE_URL`, `RELAX_SESSION_ID`, …).
 */
import { runVisionAgent } from "./run-vision-agent";

try {
  await runVisionAgent();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
