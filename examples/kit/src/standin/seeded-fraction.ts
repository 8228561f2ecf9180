import { createHash } from "node:crypto";

/**
 * A deterministic number in [0, 1) from a string key (the first 48 bits of its SHA-256). Stand-in
 * policies use it for their seeded choices: same key, same choice, on every machine.
 */
export function seededFraction(key: string): number {
  const digest = createHash("sha256").update(key).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/**
 * The key a stand-in policy seeds its choices with for one request: the sampling seed and a label when
 * the request carries a seed (Relax sends one per session and turn with `--rollout-deterministic-seed`,
 * which makes a run reproducible), otherwise the request id and the label. Samples of a Group share a
 * prompt but not a seed or `rid`, so their choices differ.
 */
export function requestSeedKey(
  request: {
    rid?: string;
    sampling?: { seed?: number | null | undefined; sampling_seed?: number | null | undefined };
  },
  label: string,
): string {
  const seed = request.sampling?.seed ?? request.sampling?.sampling_seed;
  return seed != null ? `seed:${seed}|${label}` : `${request.rid ?? ""}||${label}`;
}
