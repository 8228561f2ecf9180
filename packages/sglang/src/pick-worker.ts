/**
 * 53-bit string hash (cyrb53). Stable across processes and platforms; not cryptographic.
 */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Picks the worker for a routing key (a session id) by rendezvous (highest-random-weight) hashing: the
 * same key always lands on the same worker, and adding or removing a worker moves only the keys of that
 * worker (about 1/N), like the router's `consistent_hashing` policy. Keys thus keep hitting the worker
 * whose radix cache holds their prefix.
 *
 * @throws Error when `workers` is empty.
 */
export function pickWorker(routingKey: string, workers: readonly string[]): string {
  if (workers.length === 0) throw new Error("pickWorker: no workers");
  let best = workers[0]!;
  let bestScore = -1;
  for (const worker of workers) {
    const score = hash53(`${worker}\u0000${routingKey}`);
    if (score > bestScore) {
      bestScore = score;
      best = worker;
    }
  }
  return best;
}
