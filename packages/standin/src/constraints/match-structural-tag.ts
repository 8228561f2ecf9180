import type { StructuralTagFormat, StructuralTagTag } from "@relax/chat";
import { compileJsonSchema, type JsonSchemaCheck } from "./json-schema-check";
import { scanJsonValue } from "./scan-json-value";

/** Where a text first leaves the language of a format: the furthest offset any path reached. */
export interface StructuralTagMismatch {
  /** Offset in the text (UTF-16 code units). */
  offset: number;
  /** What the format allowed there, e.g. `"\n</tool_call>"` or `JSON valid against the schema (…)`. */
  expected: string[];
}

/**
 * Whether the whole `text` is in the language of a structural tag's format, as xgrammar defines it:
 * - `const_string`: exactly its value; `json_schema`: one JSON value valid against the schema;
 * - `tag`: `begin`, the content, `end`; `any_text` inside a tag runs up to the tag's first `end` (any text
 *   anywhere else);
 * - `sequence`, `or`: in turn, one of;
 * - `tags_with_separator`: tags joined by the separator, nothing else (at least one with `at_least_one`,
 *   at most one with `stop_after_first`);
 * - `triggered_tags`: free text in which each trigger starts one of the tags whose `begin` it prefixes
 *   (the text cannot hold a trigger otherwise); free text ends at the enclosing tag's `end` (or the end of
 *   the text); with `at_least_one` a tag comes first, with `stop_after_first` nothing follows the first tag.
 *
 * @returns `undefined` when the text matches, else the furthest mismatch.
 */
export function matchStructuralTag(
  format: StructuralTagFormat,
  text: string,
): StructuralTagMismatch | undefined {
  const matcher = new StructuralTagMatcher(text);
  for (const end of matcher.match(format, 0, undefined)) {
    if (end === text.length) return undefined;
    matcher.fail(end, "the end of the output");
  }
  return matcher.mismatch();
}

/** The end strings of the nearest enclosing tag (xgrammar's detected end), or none at the top level. */
type Ends = readonly string[] | undefined;

class StructuralTagMatcher {
  readonly #checks = new WeakMap<object, JsonSchemaCheck>();
  #furthest = -1;
  #expected = new Set<string>();

  constructor(private readonly text: string) {}

  /** The furthest mismatch recorded. */
  mismatch(): StructuralTagMismatch {
    return { offset: Math.max(0, this.#furthest), expected: [...this.#expected] };
  }

  /** Records that `expected` was needed at `offset` (kept when it is the furthest so far). */
  fail(offset: number, expected: string): void {
    if (offset > this.#furthest) {
      this.#furthest = offset;
      this.#expected = new Set([expected]);
    } else if (offset === this.#furthest) this.#expected.add(expected);
  }

  /** Every offset at which `format`, started at `pos`, can end. */
  *match(format: StructuralTagFormat, pos: number, ends: Ends): Generator<number> {
    switch (format.type) {
      case "const_string":
        if (this.text.startsWith(format.value, pos)) yield pos + format.value.length;
        else this.fail(pos, JSON.stringify(format.value));
        return;
      case "json_schema": {
        const end = this.#json(format, pos);
        if (end !== undefined) yield end;
        return;
      }
      case "any_text":
        if (ends === undefined) yield this.text.length;
        else {
          const at = this.#first(ends, pos);
          if (at === undefined)
            this.fail(this.text.length, ends.map((end) => JSON.stringify(end)).join(" or "));
          else yield at;
        }
        return;
      case "sequence":
        yield* this.#sequence(format.elements, 0, pos, ends);
        return;
      case "or":
        for (const element of format.elements) yield* this.match(element, pos, ends);
        return;
      case "tag":
        yield* this.#tag(format, pos);
        return;
      case "tags_with_separator":
        yield* this.#separated(format, pos);
        return;
      case "triggered_tags":
        yield* this.#triggered(format, pos, ends);
        return;
    }
  }

  *#sequence(elements: StructuralTagFormat[], index: number, pos: number, ends: Ends): Generator<number> {
    if (index === elements.length) {
      yield pos;
      return;
    }
    for (const next of this.match(elements[index]!, pos, ends))
      yield* this.#sequence(elements, index + 1, next, ends);
  }

  *#tag(tag: StructuralTagTag, pos: number): Generator<number> {
    if (!this.text.startsWith(tag.begin, pos)) {
      this.fail(pos, JSON.stringify(tag.begin));
      return;
    }
    for (const contentEnd of this.match(tag.content, pos + tag.begin.length, [tag.end])) {
      if (this.text.startsWith(tag.end, contentEnd)) yield contentEnd + tag.end.length;
      else this.fail(contentEnd, JSON.stringify(tag.end));
    }
  }

  *#anyTag(tags: readonly StructuralTagTag[], pos: number): Generator<number> {
    for (const tag of tags) yield* this.#tag(tag, pos);
  }

  *#separated(
    format: Extract<StructuralTagFormat, { type: "tags_with_separator" }>,
    pos: number,
  ): Generator<number> {
    if (format.at_least_one !== true) yield pos;
    const more = function* (this: StructuralTagMatcher, at: number): Generator<number> {
      yield at;
      if (format.stop_after_first === true) return;
      if (!this.text.startsWith(format.separator, at)) {
        this.fail(at, JSON.stringify(format.separator));
        return;
      }
      for (const next of this.#anyTag(format.tags, at + format.separator.length))
        if (next > at) yield* more.call(this, next);
    };
    for (const first of this.#anyTag(format.tags, pos)) yield* more.call(this, first);
  }

  *#triggered(
    format: Extract<StructuralTagFormat, { type: "triggered_tags" }>,
    pos: number,
    ends: Ends,
  ): Generator<number> {
    const after = function* (this: StructuralTagMatcher, at: number): Generator<number> {
      if (format.stop_after_first === true) yield at;
      else yield* free.call(this, at);
    };
    const free = function* (this: StructuralTagMatcher, at: number): Generator<number> {
      const stop =
        ends === undefined ? this.text.length : (this.#first(ends, at) ?? Number.POSITIVE_INFINITY);
      const trigger = this.#first(format.triggers, at);
      if (trigger === undefined || trigger >= stop) {
        if (stop === Number.POSITIVE_INFINITY)
          this.fail(this.text.length, ends!.map((end) => JSON.stringify(end)).join(" or "));
        else yield stop;
        return;
      }
      const word = format.triggers.find((candidate) => this.text.startsWith(candidate, trigger))!;
      const tags = format.tags.filter((tag) => tag.begin.startsWith(word));
      for (const next of this.#anyTag(tags, trigger)) if (next > at) yield* after.call(this, next);
    };
    if (format.at_least_one === true) {
      for (const first of this.#anyTag(format.tags, pos)) yield* after.call(this, first);
    } else yield* free.call(this, pos);
  }

  /** The end of one schema-valid JSON value at `pos`, or `undefined` (with the mismatch recorded). */
  #json(format: Extract<StructuralTagFormat, { type: "json_schema" }>, pos: number): number | undefined {
    const scan = scanJsonValue(this.text, pos);
    if (!scan.ok) {
      this.fail(scan.at, `JSON: ${scan.reason}`);
      return undefined;
    }
    let check = this.#checks.get(format);
    if (check === undefined) {
      check = compileJsonSchema(format.json_schema);
      this.#checks.set(format, check);
    }
    const error = check(JSON.parse(this.text.slice(pos, scan.end)));
    if (error === undefined) return scan.end;
    this.fail(pos, `JSON valid against the schema (${error})`);
    return undefined;
  }

  /** The first offset at or after `pos` where one of `needles` starts. */
  #first(needles: readonly string[], pos: number): number | undefined {
    let first: number | undefined;
    for (const needle of needles) {
      const at = this.text.indexOf(needle, pos);
      if (at !== -1 && (first === undefined || at < first)) first = at;
    }
    return first;
  }
}
