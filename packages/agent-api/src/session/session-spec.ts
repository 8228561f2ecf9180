import type { SessionForestOptions } from "@relax/forest";

/**
 * What a gateway session is made of: its label, its credential, its Group and mode, its forest's options
 * and its sampling seed base (a Group's controller creates sessions from these, in process or on a shard).
 */
export interface SessionSpec {
  /** Non-secret label, e.g. `g3-1-0a1b2c.s0`. */
  id: string;
  /** The agent's Bearer credential (128 random bits, hex). */
  credential: string;
  groupId: string;
  mode: "train" | "eval";
  /** The forest's options without its renderer (every gateway process has its own). */
  forest: Omit<SessionForestOptions, "renderer">;
  samplingSeedBase?: number;
}
