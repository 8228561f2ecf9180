// Agents of the sessions bench (`bench/sessions.ts`), in their own process so that their CPU is not the
// gateway's. Each session replays its full history through /v1/chat/completions for `turns` turns; after
// every reply it appends a user message of `growRepeat` sentences (a tool result standing in), so the
// context grows by the same amount each turn. With `phases`, every session finishes turn t before any
// starts turn t + 1; between turns the process writes `phase <t>` and waits for a line on stdin, so the
// gateway's process can read its CPU time per turn index.
// Prints one JSON line: round trips per turn index (ms, one list per session), and the JSON.parse time of
// the bodies of each turn index (measured here after the run, best of 3, mean over sessions).
import { createInterface } from "node:readline";

const config = JSON.parse(process.argv[2]);
const { baseUrl, sessions, turns, sentence, firstRepeat, growRepeat, phases } = config;

const stdinLines = phases ? createInterface({ input: process.stdin })[Symbol.asyncIterator]() : undefined;
let barrier;
if (phases) {
  let waiting = 0;
  let release;
  let gate = new Promise((resolve) => (release = resolve));
  let phase = 0;
  barrier = async () => {
    const current = gate;
    if (++waiting === sessions.length) {
      waiting = 0;
      process.stdout.write(`phase ${phase++}\n`);
      await stdinLines.next();
      const done = release;
      gate = new Promise((resolve) => (release = resolve));
      done();
    }
    await current;
  };
}

const bodies = [];
async function runSession(sessionId, index) {
  const messages = [
    { role: "system", content: "You are a load-test agent." },
    { role: "user", content: `Session ${index}. ${sentence.repeat(firstRepeat)}` },
  ];
  const rtts = [];
  for (let turn = 0; turn < turns; turn++) {
    const body = JSON.stringify({ model: "m", messages });
    bodies.push({ body, turn });
    const started = performance.now();
    const response = await fetch(`${baseUrl}v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${sessionId}` },
      body,
    });
    const reply = await response.json();
    if (response.status !== 200) {
      throw new Error(
        `turn ${turn} of ${sessionId}: ${response.status} ${JSON.stringify(reply).slice(0, 300)}`,
      );
    }
    rtts.push(performance.now() - started);
    messages.push(reply.choices[0].message);
    messages.push({ role: "user", content: `Result ${turn + 1}: ${sentence.repeat(growRepeat)}` });
    if (barrier) await barrier();
  }
  return rtts;
}

const rtts = await Promise.all(sessions.map(runSession));
const parseMsByTurn = new Array(turns).fill(0);
for (const { body, turn } of bodies) {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    JSON.parse(body);
    best = Math.min(best, performance.now() - t);
  }
  parseMsByTurn[turn] += best / sessions.length;
}
process.stdout.write(`${JSON.stringify({ rtts, parseMsByTurn })}\n`);
process.exit(0);
