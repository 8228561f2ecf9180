import type {
  ExportedContext,
  ExportMode,
  GroupDropReason,
  GroupExportOutcome,
  SessionDrop,
} from "./group-export-outcome";

/** Why one step of {@link exportGroup} drops its Group, before it becomes a `dropped` outcome. */
export interface GroupDrop {
  reason: GroupDropReason;
  /** What went wrong, without the `group <i> dropped (<reason>): ` prefix. */
  message: string;
  /** The non-finalizable sessions. @default [] */
  sessions?: SessionDrop[];
  /** The error that caused the drop, when there is one. */
  cause?: unknown;
}

/** Options of {@link droppedOutcome}. */
export interface DroppedOutcomeOptions {
  groupIndex: number;
  mode: ExportMode;
  /** The Group's contexts as they stand at the drop (kept by reference, for the debug dump). */
  contexts: ExportedContext[];
  drop: GroupDrop;
}

/** The `dropped` outcome of a Group: the message is prefixed `group <groupIndex> dropped (<reason>): `. */
export function droppedOutcome({
  groupIndex,
  mode,
  contexts,
  drop,
}: DroppedOutcomeOptions): GroupExportOutcome {
  return {
    kind: "dropped",
    groupIndex,
    mode,
    reason: drop.reason,
    message: `group ${groupIndex} dropped (${drop.reason}): ${drop.message}`,
    sessions: drop.sessions ?? [],
    contexts,
    ...(drop.cause === undefined ? {} : { cause: drop.cause }),
  };
}

/** How a user function's failure reads in a drop message: `Name: message` for an Error, else `String(error)`. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
