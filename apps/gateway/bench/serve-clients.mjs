// Clients of the serve bench (worker thread, so that their CPU work is not on the gateway's event loop).
// Each message from the parent is a job {id, type, ...}; the answer is {id, ...result} or {id, error}.
//   turns:   one chat turn of every session at once → {results: [{sessionId, status, ms, text}]}
//   latency: `turns` sequential turns of every session, all sessions at once → {rtts: [ms]}
//   ndjson:  POST a URL, read the NDJSON body line by line with JSON.parse → {rows, bytes, tokens, ms}
//   poll:    GET a URL every `intervalMs` until a `stop-poll` job → {polls, failures, ms: [per poll]}
import { parentPort } from "node:worker_threads";

let polling;

async function chatTurn(baseUrl, sessionId, messages) {
  const started = performance.now();
  const response = await fetch(`${baseUrl}v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${sessionId}` },
    body: JSON.stringify({ model: "m", messages }),
  });
  const body = await response.json();
  const ms = performance.now() - started;
  if (response.status !== 200) return { sessionId, status: response.status, ms, text: JSON.stringify(body) };
  return { sessionId, status: 200, ms, message: body.choices[0].message };
}

async function turns({ baseUrl, sessions }) {
  const results = await Promise.all(
    sessions.map(async ({ sessionId, content }) => {
      const result = await chatTurn(baseUrl, sessionId, [
        { role: "system", content: "You are a bench agent." },
        { role: "user", content },
      ]);
      return { sessionId, status: result.status, ms: result.ms, text: result.text ?? result.message.content };
    }),
  );
  return { results };
}

async function latency({ baseUrl, sessions, turns: count, firstMessage }) {
  const rtts = [];
  let failures = 0;
  await Promise.all(
    sessions.map(async (sessionId) => {
      const messages = [
        { role: "system", content: "You are a load-test agent." },
        { role: "user", content: firstMessage },
      ];
      for (let turn = 0; turn < count; turn++) {
        const result = await chatTurn(baseUrl, sessionId, messages);
        if (result.status !== 200) {
          failures++;
          return;
        }
        rtts.push(result.ms);
        messages.push(result.message);
        messages.push({ role: "user", content: `Next step ${turn + 1}, please continue.` });
      }
    }),
  );
  return { rtts, failures };
}

async function ndjson({ url, token, body }) {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
  const decoder = new TextDecoder();
  let pending = "";
  let rows = 0;
  let bytes = 0;
  let tokens = 0;
  let last;
  const onLine = (line) => {
    if (line === "") return;
    const record = JSON.parse(line);
    if (record.type === "row") {
      rows++;
      tokens += record.row.tokens.length;
    }
    last = record.type;
  };
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf("\n");
    while (newline !== -1) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
    }
  }
  onLine(pending + decoder.decode());
  return { rows, bytes, tokens, last, ms: performance.now() - started };
}

function startPoll({ url, token, intervalMs }) {
  const state = { polls: 0, failures: 0, ms: [], stopped: false };
  const tick = async () => {
    if (state.stopped) return;
    const started = performance.now();
    try {
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      await response.json();
      if (response.status === 200) state.polls++;
      else state.failures++;
    } catch {
      state.failures++;
    }
    state.ms.push(performance.now() - started);
  };
  state.timer = setInterval(tick, intervalMs);
  tick();
  return state;
}

parentPort.on("message", async (job) => {
  try {
    let result;
    if (job.type === "turns") result = await turns(job);
    else if (job.type === "latency") result = await latency(job);
    else if (job.type === "ndjson") result = await ndjson(job);
    else if (job.type === "poll") {
      polling = startPoll(job);
      result = {};
    } else if (job.type === "stop-poll") {
      clearInterval(polling.timer);
      polling.stopped = true;
      result = { polls: polling.polls, failures: polling.failures, ms: polling.ms };
    } else throw new Error(`unknown job ${job.type}`);
    parentPort.postMessage({ id: job.id, ...result });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error?.stack ?? error) });
  }
});
