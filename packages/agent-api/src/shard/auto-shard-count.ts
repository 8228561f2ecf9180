import { availableParallelism, loadavg } from "node:os";

/** What {@link autoShardCount} decides from: the machine's cores and how busy they already are. */
export interface ShardCountInput {
  /** Cores this process may use (`os.availableParallelism()`). */
  cores: number;
  /** The 1-minute load average (`os.loadavg()[0]`; 0 where the platform has none, e.g. Windows). */
  load: number;
}

/** Most shards `auto` picks (the flag itself accepts up to 64). */
export const AUTO_SHARDS_MAX = 16;

/**
 * The shard count of `--gateway-shards auto`: `free = cores − load` (the cores not already busy, at
 * least 1); fewer than 4 free cores → 1 shard, else `floor(free / 2)`, at most 16.
 *
 * Why: a turn through a shard costs its event loop about one core while the turn is served, and the same
 * turn costs about as much again elsewhere on the machine — the agent process building and parsing its
 * request, the engine (on the stand-in, the controller), the shard's encode workers for heavy renders. So
 * one shard already saturates two cores; a second shard only pays once two more are free, and a shard
 * per core takes the cores the agents and workers need. Measured on 2 cores (`bench/shards.ts`, stand-in
 * engine): 2 shards gave 0.58–1.02× of one shard's turns/s at 8k context and 0.72–1.80× at 32k, i.e. no
 * reliable gain; the load average keeps `auto` from starting shards on cores other work already uses.
 * A machine where agents and engine run elsewhere can set `--gateway-shards N` up to 64.
 */
export function autoShardCount({ cores, load }: ShardCountInput): number {
  const free = Math.max(1, cores - Math.max(0, Number.isFinite(load) ? load : 0));
  if (free < 4) return 1;
  return Math.min(AUTO_SHARDS_MAX, Math.floor(free / 2));
}

/** {@link autoShardCount} of this machine now. */
export function measuredAutoShardCount(): number {
  return autoShardCount({ cores: availableParallelism(), load: loadavg()[0] ?? 0 });
}
