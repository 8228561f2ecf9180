/** Entry point of the long-tail agent: `node examples/long-tail-agent/dist/agent.js` (run by Relax). */
import { runLongTailAgent } from "./run-long-tail-agent";

try {
  await runLongTailAgent();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
