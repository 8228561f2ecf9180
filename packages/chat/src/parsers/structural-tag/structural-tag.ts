/**
 * xgrammar's structural tag, as SGLang takes it (JSON text) in the `structural_tag` sampling parameter of
 * `/generate`: `{"type": "structural_tag", "format": {...}}`. Only the format types Relax builds and the
 * stand-in engine checks are typed here. Field names keep xgrammar's spelling.
 *
 * @see xgrammar `docs/tutorials/structural_tag.md`, `python/xgrammar/structural_tag.py` (xgrammar ≥ 0.1.25)
 */
export interface StructuralTag {
  type: "structural_tag";
  format: StructuralTagFormat;
}

/** `begin`, then `content`, then `end` (e.g. `<think>` any text `</think>`). */
export interface StructuralTagTag {
  type: "tag";
  begin: string;
  content: StructuralTagFormat;
  end: string;
}

/** One node of a structural tag's format tree. */
export type StructuralTagFormat =
  /** Exactly `value`. */
  | { type: "const_string"; value: string }
  /** One JSON value valid against `json_schema`. */
  | { type: "json_schema"; json_schema: Record<string, unknown> | boolean }
  /** Any text; inside a tag, any text up to the tag's first `end`. */
  | { type: "any_text" }
  /** Each element in turn (only the last may be unbounded: `any_text`, `triggered_tags`, `tags_with_separator`). */
  | { type: "sequence"; elements: StructuralTagFormat[] }
  /** One of the elements (all bounded, or all unbounded). */
  | { type: "or"; elements: StructuralTagFormat[] }
  | StructuralTagTag
  /** Free text in which each trigger starts one of the tags whose `begin` it prefixes. */
  | {
      type: "triggered_tags";
      triggers: string[];
      tags: StructuralTagTag[];
      at_least_one?: boolean;
      stop_after_first?: boolean;
    }
  /** Tags separated by `separator` and nothing else. */
  | {
      type: "tags_with_separator";
      tags: StructuralTagTag[];
      separator: string;
      at_least_one?: boolean;
      stop_after_first?: boolean;
    };
