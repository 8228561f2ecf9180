// Agents of the ingress bench (`bench/ingress.ts`), in their own process so that their CPU is not the
// gateway's: each session replays its full history through /v1/chat/completions for `turns` turns.
// A session is its credential (sent to `baseUrl`) or `{credential, baseUrl}` (its own gateway shard:
// `bench/shards.ts`).
// Optionally one attacker sends a single request whose content is one unbroken word of `attackBytes`.
// Prints one JSON line: per-turn round trips, and the JSON.parse time of every body sent (measured here,
// after the run, on the same machine). With `phases`, every session finishes turn t before any starts
// turn t + 1, and between turns the process writes `phase <t>` and waits for a line on stdin, so that the
// gateway's process can read its CPU time per turn index (the line also carries the turn index's wall
// time in ms: `phase <t> <ms>`). With `phases`, the process first writes `ready` and waits for a line,
// so that the gateway's process takes its CPU baseline after this process has started.
import { createInterface } from "node:readline";

const config = JSON.parse(process.argv[2]);
const { baseUrl, sessions, turns, sentence, repeat, attack, phases } = config;
const firstMessage = sentence.repeat(repeat);

const stdinLines = phases ? createInterface({ input: process.stdin })[Symbol.asyncIterator]() : undefined;
let barrier;
if (phases) {
  let waiting = 0;
  let release;
  let gate = new Promise((resolve) => (release = resolve));
  let phase = 0;
  let phaseStarted = performance.now();
  barrier = async () => {
    const current = gate;
    if (++waiting === sessions.length) {
      waiting = 0;
      // `phase <t> <ms>`: the wall time of turn index t, from its release to its last session's reply.
      process.stdout.write(`phase ${phase++} ${(performance.now() - phaseStarted).toFixed(3)}\n`);
      await stdinLines.next();
      phaseStarted = performance.now();
      const done = release;
      gate = new Promise((resolve) => (release = resolve));
      done();
    }
    await current;
  };
}

const bodies = [];
async function runSession(session) {
  const sessionId = typeof session === "string" ? session : session.credential;
  const url = typeof session === "string" ? baseUrl : session.baseUrl;
  const messages = [
    { role: "system", content: "You are a load-test agent." },
    // Unique per session (its number, fixed width: every session's prompt has the same token count), so
    // no session's first turn can reuse another's render or tokenisation.
    { role: "user", content: `Session ${sessionId.replace(/\D/g, "").padStart(8, "0")}. ${firstMessage}` },
  ];
  const rtts = [];
  for (let turn = 0; turn < turns; turn++) {
    const body = JSON.stringify({ model: "m", messages });
    bodies.push({ body, turn });
    const started = performance.now();
    const response = await fetch(`${url}v1/chat/completions`, {
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
    messages.push({ role: "user", content: `Next step ${turn + 1}, please continue.` });
    if (barrier) await barrier();
  }
  return rtts;
}

let attackStatus = "none";
if (attack) {
  const body = JSON.stringify({
    model: "m",
    messages: [{ role: "user", content: "z".repeat(attack.bytes) }],
  });
  fetch(`${baseUrl}v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${attack.sessionId}` },
    body,
  }).then(
    (response) => (attackStatus = `answered ${response.status}`),
    () => (attackStatus = "failed"),
  );
  // Let the attack reach the gateway's tokeniser before the healthy sessions start.
  await new Promise((resolve) => setTimeout(resolve, attack.leadMs));
  attackStatus = "in progress";
}
// With phases, the gateway's process reads its CPU baseline only once this process has started (its
// spawn is not the gateway's first turn): `ready`, then one line on stdin.
if (stdinLines) {
  process.stdout.write("ready\n");
  await stdinLines.next();
}
const started = performance.now();
const rtts = (await Promise.all(sessions.map(runSession))).flat();
const wallMs = performance.now() - started;
const attackAtEnd = attackStatus;
let parseMs = 0;
const parseMsByTurn = new Array(turns).fill(0);
for (const { body, turn } of bodies) {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    JSON.parse(body);
    best = Math.min(best, performance.now() - t);
  }
  parseMs += best;
  parseMsByTurn[turn] += best / sessions.length;
}
const bodyBytes = bodies.reduce((sum, { body }) => sum + Buffer.byteLength(body), 0);
process.stdout.write(
  `${JSON.stringify({ rtts, wallMs, parseMsPerBody: parseMs / bodies.length, parseMsByTurn, bytesPerBody: bodyBytes / bodies.length, attack: attackAtEnd })}\n`,
);
process.exit(0);
