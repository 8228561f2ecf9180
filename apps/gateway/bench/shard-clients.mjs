// Agents of the shards bench (`bench/shards.ts`), in their own process: each session replays its full
// history through /v1/chat/completions of its own shard for `turns` turns. Prints one JSON line with the
// per-turn round trips and the wall time.
const { sessions, turns, sentence, repeat } = JSON.parse(process.argv[2]);
const firstMessage = sentence.repeat(repeat);

async function runSession({ credential, baseUrl }) {
  const messages = [
    { role: "system", content: "You are a load-test agent." },
    { role: "user", content: firstMessage },
  ];
  const rtts = [];
  for (let turn = 0; turn < turns; turn++) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
      body: JSON.stringify({ model: "m", messages }),
    });
    const reply = await response.json();
    if (response.status !== 200) {
      throw new Error(`turn ${turn}: ${response.status} ${JSON.stringify(reply).slice(0, 300)}`);
    }
    rtts.push(performance.now() - started);
    messages.push(reply.choices[0].message);
    messages.push({ role: "user", content: `Next step ${turn + 1}, please continue.` });
  }
  return rtts;
}

const started = performance.now();
const rtts = (await Promise.all(sessions.map(runSession))).flat();
process.stdout.write(`${JSON.stringify({ rtts, wallMs: performance.now() - started })}\n`);
process.exit(0);
