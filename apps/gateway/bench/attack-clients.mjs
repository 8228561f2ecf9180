// Clients of the attack bench (`bench/attack.ts`), each role in its own process so that neither's CPU
// is the gateway's nor the other's. Both wait until `startAt` (epoch ms) and print one JSON line.
// - healthy: one session doing turns through /v1/chat/completions until `until` (epoch ms): a system
//   prompt, a first user message of `repeat` sentences, then the agent's replies and short user messages,
//   back to the first two messages every 16 turns (a fork at the prefix, as an agent that restarts a
//   subtask). Prints `{turns: [[startEpochMs, rttMs], …]}`.
// - attacker: for each phase of `phases` ({name, from, to} epoch ms, and the phase's session: url,
//   credential), sends that phase's body one request at a time, each as soon as the previous is
//   answered, until `to`. The bodies are built before
//   `startAt`. Prints `{attacks: {name: [{ms, status, code}, …]}}`.
const config = JSON.parse(process.argv[2]);
const { role, url, credential, startAt } = config;
const headersOf = (credential) => ({
  "content-type": "application/json",
  authorization: `Bearer ${credential}`,
});
const headers = headersOf(credential);
const sleepUntil = (at) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

async function healthy() {
  const { until, sentence, repeat } = config;
  const prefix = [
    { role: "system", content: "You are a load-test agent." },
    { role: "user", content: sentence.repeat(repeat) },
  ];
  let messages = [...prefix];
  const turns = [];
  await sleepUntil(startAt);
  for (let turn = 0; Date.now() < until; turn++) {
    const body = JSON.stringify({ model: "m", messages });
    const startedAt = Date.now();
    const started = performance.now();
    const response = await fetch(url, { method: "POST", headers, body });
    const reply = await response.json();
    if (response.status !== 200) {
      throw new Error(`healthy turn ${turn}: ${response.status} ${JSON.stringify(reply).slice(0, 300)}`);
    }
    turns.push([startedAt, performance.now() - started]);
    if (turn % 16 === 15) {
      messages = [...prefix, { role: "user", content: `Subtask ${turn}: start again.` }];
    } else {
      messages.push(reply.choices[0].message);
      messages.push({ role: "user", content: `Next step ${turn + 1}, please continue.` });
    }
  }
  return { turns };
}

/** The attack bodies, by phase name. */
function attackBody(name) {
  if (name === "1e5-messages") {
    const messages = [];
    for (let i = 0; i < 100_000; i++)
      messages.push({ role: i % 2 ? "assistant" : "user", content: `message ${i}` });
    return JSON.stringify({ model: "m", messages });
  }
  if (name === "50k-property-schema") {
    const properties = {};
    for (let i = 0; i < 50_000; i++) properties[`field_${i}`] = { type: "string", description: `field ${i}` };
    return JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties } } }],
    });
  }
  if (name === "5MiB-word") {
    return JSON.stringify({ model: "m", messages: [{ role: "user", content: "z".repeat(5 * 1024 * 1024) }] });
  }
  throw new Error(`unknown attack ${name}`);
}

async function attacker() {
  const bodies = new Map(config.phases.map((phase) => [phase.name, attackBody(phase.name)]));
  const attacks = {};
  await sleepUntil(startAt);
  for (const phase of config.phases) {
    await sleepUntil(phase.from);
    const results = [];
    attacks[phase.name] = results;
    while (Date.now() < phase.to) {
      const started = performance.now();
      const response = await fetch(phase.url, {
        method: "POST",
        headers: headersOf(phase.credential),
        body: bodies.get(phase.name),
      });
      const text = await response.text();
      let code = null;
      try {
        code = JSON.parse(text).error?.code ?? null;
      } catch {}
      results.push({ ms: performance.now() - started, status: response.status, code });
    }
  }
  return { attacks };
}

const result = role === "healthy" ? await healthy() : await attacker();
process.stdout.write(`${JSON.stringify(result)}\n`);
