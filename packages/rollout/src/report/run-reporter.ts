import type { EngineFaultCounters } from "@relax/agent-api";
import { SingleBar } from "cli-progress";
import type { GroupResult } from "../group/run-group";

/** Counters of a run, kept for the progress bar and the final summary. */
export interface RunCounters {
  prepared: number;
  running: number;
  scored: number;
  /** Train Groups exported / dropped (eval Groups are counted apart, in `eval*`). */
  groupsExported: number;
  groupsDropped: number;
  /** Train drops by reason. */
  dropReasons: Map<string, number>;
  evalGroupsExported: number;
  evalGroupsDropped: number;
  turns: number;
  turnErrors: number;
  generatedTokens: number;
  /** Gateway-added latency per turn in ms (gateway time minus engine time), for percentiles. */
  gatewayMs: number[];
  engineMs: number[];
  /** Non-2xx answers to agents, by status (`"400"`, `"404"`, …). */
  refusals: Map<string, number>;
  /** Requests with a field whose contract Relax does not honour, by field (`response_format`, …). */
  contractChanges: Map<string, number>;
  /** Parser issues in committed turns, by kind (`malformed_tool_call`, …). */
  parseIssues: Map<string, number>;
  /** The engine-failure hold's live counters (docs/contract.md#engine-failures), when the run has one. */
  engineFaults?: EngineFaultCounters;
}

/**
 * The user's view of a run: a progress bar on a TTY (sessions scored out of the step's target, with
 * `prepared=`, `running=` and `dropped=` counts), or
 * one status line per finished Group otherwise, plus the counters the summary table reads.
 */
export class RunReporter {
  readonly counters: RunCounters = {
    prepared: 0,
    running: 0,
    scored: 0,
    groupsExported: 0,
    groupsDropped: 0,
    dropReasons: new Map(),
    evalGroupsExported: 0,
    evalGroupsDropped: 0,
    turns: 0,
    turnErrors: 0,
    generatedTokens: 0,
    gatewayMs: [],
    engineMs: [],
    refusals: new Map(),
    contractChanges: new Map(),
    parseIssues: new Map(),
  };
  readonly #bar: SingleBar | undefined;
  readonly #stream: NodeJS.WriteStream;
  readonly #lines: boolean;
  #stepTotal = 0;
  #stepScored = 0;
  #label = "";
  #mode = "train";

  constructor(options: { progress: boolean; stream?: NodeJS.WriteStream }) {
    this.#stream = options.stream ?? process.stderr;
    this.#lines = options.progress;
    if (options.progress && this.#stream.isTTY) {
      this.#bar = new SingleBar({
        format:
          "{label} |{bar}| {value}/{total} sessions scored | prepared={prepared} running={running} dropped={dropped} groups",
        stream: this.#stream,
        hideCursor: true,
        clearOnComplete: false,
        barsize: 30,
      });
    }
  }

  /** Starts a step's progress bar (`Rollout 3 generation`, `Eval 3 aime generation`). */
  startStep(options: { rolloutId: number; mode: string; sessions: number; dataset?: string }): void {
    this.#stepTotal = options.sessions;
    this.#stepScored = 0;
    this.#mode = options.mode;
    const dataset = options.dataset !== undefined ? ` ${options.dataset}` : "";
    this.#label = `${options.mode === "eval" ? "Eval" : "Rollout"} ${options.rolloutId}${dataset} generation`;
    this.#bar?.start(options.sessions, 0, this.#payload());
  }

  sessionPrepared(): void {
    this.counters.prepared++;
    this.#update();
  }

  groupLeased(size: number): void {
    this.counters.running += size;
    this.#update();
  }

  sessionFinished(): void {
    this.counters.running = Math.max(0, this.counters.running - 1);
    this.#update();
  }

  groupExported(result: GroupResult): void {
    if (this.#mode === "eval") this.counters.evalGroupsExported++;
    else this.counters.groupsExported++;
    this.counters.scored += result.sessions.length;
    this.#stepScored += result.sessions.length;
    this.#update();
    if (this.#bar === undefined && this.#lines) {
      this.#stream.write(
        `${this.#label}: ${this.#stepScored}/${this.#stepTotal} sessions scored (group ${result.groupId} exported)\n`,
      );
    }
  }

  groupDropped(result: GroupResult & { kind: "dropped" }): void {
    if (this.#mode === "eval") {
      this.counters.evalGroupsDropped++;
    } else {
      this.counters.groupsDropped++;
      this.counters.dropReasons.set(result.reason, (this.counters.dropReasons.get(result.reason) ?? 0) + 1);
    }
    this.#update();
  }

  turnFinished(event: {
    gatewayMs: number;
    engineMs: number;
    completionTokens: number;
    error?: unknown;
  }): void {
    if (event.error !== undefined) {
      this.counters.turnErrors++;
      return;
    }
    this.counters.turns++;
    this.counters.generatedTokens += event.completionTokens;
    this.counters.gatewayMs.push(event.gatewayMs);
    this.counters.engineMs.push(event.engineMs);
  }

  /** Counts one non-2xx answer to an agent. */
  requestRefused(status: number): void {
    increment(this.counters.refusals, String(status));
  }

  /** Counts one request carrying a field whose contract is not honoured (see `contract-change`). */
  contractChanged(field: string): void {
    increment(this.counters.contractChanges, field);
  }

  /** Counts the parser issues of a committed turn. */
  parseIssues(kinds: readonly string[]): void {
    for (const kind of kinds) increment(this.counters.parseIssues, kind);
  }

  endStep(): void {
    this.#bar?.stop();
  }

  #payload() {
    return {
      label: this.#label,
      prepared: this.counters.prepared,
      running: this.counters.running,
      dropped: this.#mode === "eval" ? this.counters.evalGroupsDropped : this.counters.groupsDropped,
    };
  }

  #update(): void {
    this.#bar?.update(this.#stepScored, this.#payload());
  }
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
