// Simulated agents for the gateway load bench (worker thread): each session replays its full history
// through /v1/chat/completions for `turns` turns. Reports per-turn round-trip times.
import { parentPort, workerData } from "node:worker_threads";

const { baseUrl, sessions, turns, firstMessage } = workerData;

async function runSession(sessionId) {
  const messages = [
    { role: "system", content: "You are a load-test agent." },
    { role: "user", content: firstMessage },
  ];
  const rtts = [];
  for (let turn = 0; turn < turns; turn++) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${sessionId}` },
      body: JSON.stringify({ model: "m", messages }),
    });
    const body = await response.json();
    if (response.status !== 200)
      throw new Error(`turn ${turn} of ${sessionId}: ${response.status} ${JSON.stringify(body)}`);
    rtts.push({ sessionId, turn, ms: performance.now() - started });
    messages.push(body.choices[0].message);
    messages.push({ role: "user", content: `Next step ${turn + 1}, please continue.` });
  }
  return rtts;
}

const results = await Promise.all(sessions.map(runSession));
parentPort.postMessage(results.flat());
