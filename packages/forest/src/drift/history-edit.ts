/**
 * Kinds of edits an agent makes to a committed assistant message when it sends history back (accidental
 * forks; see docs/contract.md#sessionforest). All but `rewritten` are benign: the `tolerant` policy maps them
 * back onto the committed response.
 *
 * - `reasoning_dropped`: `reasoning_content` removed (clients that do not echo thinking);
 * - `reasoning_inlined`: reasoning moved into `content` as `<think>…</think>`;
 * - `tool_arguments_reserialized`: arguments with the same JSON value, written differently (key order,
 *   spacing: Python `{"a": 1, "b": "x"}` vs JS `{"b":"x","a":1}`);
 * - `tool_call_id_changed`: a tool call re-identified (protocol bridges mint their own ids);
 * - `whitespace_changed`: text equal once whitespace runs are collapsed and the ends trimmed;
 * - `value_redacted`: parts of the text replaced by a redaction marker (`***`, `[REDACTED]`, …);
 * - `empty_content_replaced`: one empty form swapped for another (`null`, `""`, `[]`, absent);
 * - `rewritten`: any other change; never tolerated, the request forks.
 */
export type HistoryEditKind =
  | "reasoning_dropped"
  | "reasoning_inlined"
  | "tool_arguments_reserialized"
  | "tool_call_id_changed"
  | "whitespace_changed"
  | "value_redacted"
  | "empty_content_replaced"
  | "rewritten";

/** One edit found in a request's copy of a committed response. */
export interface HistoryEdit {
  kind: HistoryEditKind;
  /** Field path in the request, e.g. `messages[3].tool_calls[0].function.arguments`. */
  path: string;
}

/** The string form used in `toleratedEdits`: `"<kind>@<path>"`, e.g. `reasoning_dropped@messages[3].reasoning_content`. */
export function formatHistoryEdit(edit: HistoryEdit): string {
  return `${edit.kind}@${edit.path}`;
}

/**
 * Redaction markers recognised by default (longest first). Runs of three or more `*` are always
 * recognised as well.
 */
export const DEFAULT_REDACTION_MARKERS: readonly string[] = [
  "***REDACTED***",
  "[REDACTED]",
  "<REDACTED>",
  "[redacted]",
  "<redacted>",
  "[FILTERED]",
  "[HIDDEN]",
  "REDACTED",
];
