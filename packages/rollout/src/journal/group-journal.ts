import { mkdir, open, readFile, rename, stat, truncate } from "node:fs/promises";
import { dirname, join } from "node:path";
import { formatTrainingRowsJsonl, parseTrainingRowsJsonl, type TrainingRow } from "@relax/export";
import { z } from "zod";
import { ConfigError } from "../errors/config-error";
import { isInterruptedGroup } from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";
import type { GroupLaunchInfo } from "../step/controller-options";

/**
 * The file name of the Group journal inside `--run-dir` (`.ndjson`, not `.jsonl`, so `relax view <run dir>`
 * does not take it for a rows file).
 */
export const GROUP_JOURNAL_FILE = "groups.ndjson";

/** Suffix of a per-step rows file (`--output` with `{rollout_id}`) while its step runs. */
export const PARTIAL_SUFFIX = ".partial";

/**
 * The first line of a step in `<run-dir>/groups.ndjson`: written (and fsynced) before any of its Groups.
 * `offset` is the size of `rows_file` when the step started: the step's rows begin there.
 */
export const journalStepSchema = z.object({
  type: z.literal("step"),
  rollout_id: z.number().int().min(0),
  /** The train cursor when the step started (its first Group's prompt position). */
  cursor: z.number().int().min(0),
  /** The file the step's rows are appended to (absolute; a `.partial` name for per-step files). */
  rows_file: z.string(),
  offset: z.number().int().min(0),
  config_hash: z.string(),
});

/**
 * One finished Group of the running step (exported or dropped), written after its rows were appended to
 * `rows_file` and fsynced: its rows are the bytes `[offset, end)` of that file (`offset == end` for a
 * dropped Group).
 */
export const journalGroupSchema = z.object({
  type: z.literal("group"),
  rollout_id: z.number().int().min(0),
  group_index: z.number().int().min(0),
  /** The prompt position (train cursor value) the Group took. */
  cursor: z.number().int().min(0),
  /** The prompt's line in the dataset (`cursor % dataset size`). */
  prompt_index: z.number().int().min(0),
  kind: z.enum(["exported", "dropped"]),
  /** The drop reason; null for an exported Group. */
  reason: z.string().nullable(),
  rows: z.number().int().min(0),
  offset: z.number().int().min(0),
  end: z.number().int().min(0),
});

/** A line of the journal. */
export type JournalEntry = z.infer<typeof journalStepSchema> | z.infer<typeof journalGroupSchema>;
const journalEntrySchema = z.discriminatedUnion("type", [journalStepSchema, journalGroupSchema]);

/** Where a step killed mid-way continues (see {@link planStepResume}). */
export interface StepResume {
  rolloutId: number;
  rowsFile: string;
  /** Where the step's rows start in `rowsFile`. */
  offset: number;
  /** End of the last journaled Group's rows: the file is cut back to it (a torn or unjournaled tail). */
  end: number;
  /** Groups already exported (they count towards the step's batch). */
  exported: number;
  /** Every journaled Group (exported or dropped). */
  groups: number;
  /** Prompt positions between the step's start and its last finished Group that never finished. */
  pendingCursors: number[];
  /** The train cursor after the pending ones: `max(finished cursor) + 1`, or the step's start cursor. */
  nextCursor: number;
  /** Group index for the first Group run after the restart: one past the highest journaled one. */
  firstGroupIndex: number;
}

/**
 * Reads `<dir>/groups.ndjson`. A torn last line (a crash during its write: no newline and not JSON) is
 * ignored, as is any line after the first one that does not parse (nothing after a torn write counts).
 * @returns the entries, and `torn` (how many trailing lines were ignored).
 */
export async function readGroupJournal(dir: string): Promise<{ entries: JournalEntry[]; torn: number }> {
  let text: string;
  try {
    text = await readFile(join(dir, GROUP_JOURNAL_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], torn: 0 };
    throw error;
  }
  const lines = text.split("\n");
  const entries: JournalEntry[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let entry: JournalEntry | undefined;
    try {
      const parsed = journalEntrySchema.safeParse(JSON.parse(line));
      entry = parsed.success ? parsed.data : undefined;
    } catch {
      entry = undefined;
    }
    if (entry === undefined) {
      return { entries, torn: lines.slice(i).filter((rest) => rest.trim() !== "").length };
    }
    entries.push(entry);
  }
  return { entries, torn: 0 };
}

/**
 * How step `rolloutId` continues after a restart, from the journal: `undefined` when the journal has no
 * start line for it (the step never started, or the journal was reset after it finished).
 * @throws ConfigError when the step was started by a run of another configuration and `force` is false.
 */
export function planStepResume(options: {
  entries: readonly JournalEntry[];
  rolloutId: number;
  configHash: string;
  force: boolean;
  journalPath: string;
}): StepResume | undefined {
  const { entries, rolloutId } = options;
  const start = entries.findLast(
    (entry): entry is z.infer<typeof journalStepSchema> =>
      entry.type === "step" && entry.rollout_id === rolloutId,
  );
  if (start === undefined) return undefined;
  if (start.config_hash !== options.configHash && !options.force) {
    throw new ConfigError({
      message:
        `${options.journalPath}: step ${rolloutId} was started with another configuration ` +
        `(${start.config_hash} there, ${options.configHash} now); restore the flags of that run, use another ` +
        "--run-dir, or pass --run-dir-force",
    });
  }
  const after = entries.slice(entries.lastIndexOf(start) + 1);
  const groups = after.filter(
    (entry): entry is z.infer<typeof journalGroupSchema> =>
      entry.type === "group" && entry.rollout_id === rolloutId,
  );
  const finished = new Set(groups.map((group) => group.cursor));
  const last = groups.reduce((max, group) => Math.max(max, group.cursor), start.cursor - 1);
  const pendingCursors: number[] = [];
  for (let cursor = start.cursor; cursor <= last; cursor++)
    if (!finished.has(cursor)) pendingCursors.push(cursor);
  return {
    rolloutId,
    rowsFile: start.rows_file,
    offset: start.offset,
    end: groups.reduce((max, group) => Math.max(max, group.end), start.offset),
    exported: groups.filter((group) => group.kind === "exported").length,
    groups: groups.length,
    pendingCursors,
    nextCursor: last + 1,
    firstGroupIndex: groups.reduce((max, group) => Math.max(max, group.group_index + 1), 0),
  };
}

/** Opens `path` (append), writes `text`, fsyncs, closes. */
async function appendDurably(path: string, text: string): Promise<void> {
  const handle = await open(path, "a");
  try {
    await handle.writeFile(text, "utf8");
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** fsyncs a directory, so a rename or a new file in it survives a power cut. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle.close();
  }
}

/** Empties `<dir>/groups.ndjson` (after `state.json` recorded the finished step). */
export async function resetGroupJournal(dir: string): Promise<void> {
  await truncate(join(dir, GROUP_JOURNAL_FILE), 0).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/** Options of {@link StepRowsWriter.open}. */
export interface StepRowsWriterOptions {
  rolloutId: number;
  /** The step's rows file: `--output` with `{rollout_id}` replaced. */
  path: string;
  /** `--output` has `{rollout_id}`: rows go to `<path>.partial`, renamed to `path` when the step ends. */
  perStep: boolean;
  /** One file for every step: append (false for the first step of a run: the file starts empty). */
  append: boolean;
  /** The train cursor at the step's start (journaled). */
  cursor: number;
  /** `--run-dir`: the journal goes there. Without it rows are still fsynced per Group, but not journaled. */
  runDir?: string;
  configHash: string;
  /** Continue a step killed mid-way (from {@link planStepResume}). */
  resume?: StepResume;
}

/**
 * Test failpoint (`RELAX_FAILPOINT=rows-mid-write:<k>`): the process SIGKILLs itself half-way through
 * the first row of the k-th Group with rows (counted over the process), after fsyncing that half, so
 * kill tests produce the state a crash during a write leaves. Unset in normal runs.
 */
const midWriteFailpoint = (() => {
  const match = /^rows-mid-write:(\d+)$/.exec(process.env.RELAX_FAILPOINT ?? "");
  return match ? Number(match[1]) : undefined;
})();
let groupsWithRows = 0;

/**
 * Writes one train step's rows durably, Group by Group: each finished Group's rows are appended to the
 * rows file and fsynced as the Group finishes ({@link add}), then a `group` line goes to the journal
 * (fsynced), so a crash keeps every Group whose journal line was written, and a restart cuts the rows file
 * back to the last journaled Group. A per-step file is written as `<path>.partial` and renamed to `path`
 * by {@link finish}. Writes are serialised in the order of `add` calls.
 */
export class StepRowsWriter {
  readonly #options: StepRowsWriterOptions;
  readonly #file: string;
  #end: number;
  #chain: Promise<void> = Promise.resolve();
  #error: unknown;
  /** Rows written by this writer (not those of a resumed step's earlier run). */
  written = 0;

  private constructor(options: StepRowsWriterOptions, file: string, end: number) {
    this.#options = options;
    this.#file = file;
    this.#end = end;
  }

  /** The file rows are appended to while the step runs. */
  get file(): string {
    return this.#file;
  }

  /**
   * Opens the step's rows file: a fresh step starts `<path>.partial` empty (per-step) or the one file
   * empty (first step) / at its end (later steps) and journals its start; a resumed step cuts its file
   * back to the last journaled Group.
   */
  static async open(options: StepRowsWriterOptions): Promise<StepRowsWriter> {
    const { resume, runDir } = options;
    if (resume !== undefined) {
      const file = resume.rowsFile;
      if (options.perStep && !(await exists(file)) && (await exists(options.path))) {
        // Killed after the rename but before state.json: the finished file is the step's partial file.
        await rename(options.path, file);
      }
      if (!(await exists(file))) await appendDurably(file, "");
      await truncate(file, resume.end);
      return new StepRowsWriter(options, file, resume.end);
    }
    const file = options.perStep ? `${options.path}${PARTIAL_SUFFIX}` : options.path;
    await mkdir(dirname(file), { recursive: true });
    if (options.perStep || !options.append) {
      const handle = await open(file, "w");
      await handle.datasync();
      await handle.close();
    } else if (!(await exists(file))) {
      await appendDurably(file, "");
    }
    const offset = (await stat(file)).size;
    if (runDir !== undefined) {
      await mkdir(runDir, { recursive: true });
      const entry: JournalEntry = {
        type: "step",
        rollout_id: options.rolloutId,
        cursor: options.cursor,
        rows_file: file,
        offset,
        config_hash: options.configHash,
      };
      await appendDurably(join(runDir, GROUP_JOURNAL_FILE), `${JSON.stringify(entry)}\n`);
    }
    return new StepRowsWriter(options, file, offset);
  }

  /**
   * Queues a finished Group: its rows (none for a dropped one) appended and fsynced, then journaled. An
   * interrupted Group is not journaled (its prompt runs again on a resume).
   */
  add(result: GroupResult, info: GroupLaunchInfo): void {
    if (isInterruptedGroup(result)) return;
    this.#chain = this.#chain.then(async () => {
      if (this.#error !== undefined) return;
      try {
        const rows: TrainingRow[] = result.kind === "exported" ? result.export.rows : [];
        const text = formatTrainingRowsJsonl(rows);
        const offset = this.#end;
        if (text.length > 0 && ++groupsWithRows === midWriteFailpoint) {
          // Half of the first row: the cut never falls on a line end, whatever the rows' lengths.
          await appendDurably(this.#file, text.slice(0, Math.max(1, Math.floor(text.indexOf("\n") / 2))));
          process.kill(process.pid, "SIGKILL");
          await new Promise(() => {});
        }
        if (text.length > 0) await appendDurably(this.#file, text);
        this.#end = offset + Buffer.byteLength(text, "utf8");
        this.written += rows.length;
        if (this.#options.runDir === undefined) return;
        const entry: JournalEntry = {
          type: "group",
          rollout_id: this.#options.rolloutId,
          group_index: info.groupIndex,
          cursor: info.cursor,
          prompt_index: result.prompt.index,
          kind: result.kind,
          reason: result.kind === "dropped" ? result.reason : null,
          rows: rows.length,
          offset,
          end: this.#end,
        };
        await appendDurably(join(this.#options.runDir, GROUP_JOURNAL_FILE), `${JSON.stringify(entry)}\n`);
      } catch (error) {
        this.#error = error;
      }
    });
  }

  /** Waits for every queued write. @throws the first write error */
  async flush(): Promise<void> {
    await this.#chain;
    if (this.#error !== undefined) throw this.#error;
  }

  /**
   * The step is complete: waits for the writes, then (per-step file) renames `<path>.partial` to `path`
   * and fsyncs the directory. @returns the final path
   */
  async finish(): Promise<string> {
    await this.flush();
    if (!this.#options.perStep) return this.#file;
    await rename(this.#file, this.#options.path);
    await syncDir(dirname(this.#options.path));
    return this.#options.path;
  }

  /** Rows the step's earlier run wrote before a restart: bytes `[offset, end)` of the file. */
  static async readResumedRows(resume: StepResume, file: string): Promise<TrainingRow[]> {
    if (resume.end <= resume.offset) return [];
    const handle = await open(file, "r");
    try {
      const buffer = Buffer.alloc(resume.end - resume.offset);
      await handle.read(buffer, 0, buffer.length, resume.offset);
      return parseTrainingRowsJsonl(buffer.toString("utf8"));
    } finally {
      await handle.close();
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
