import type { StructuralTag, StructuralTagFormat, StructuralTagTag } from "@relax/chat";

/** A `structural_tag` the stand-in cannot compile (an engine would refuse it too, or it is outside the subset). */
export class StructuralTagError extends Error {}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Parses the JSON text of SGLang's `structural_tag` sampling parameter in xgrammar's format form
 * (`{"type": "structural_tag", "format": {...}}`) and checks it the way xgrammar's analyzer does: every
 * element of an `or` bounded or every one unbounded, only the last element of a `sequence` unbounded, a
 * tag around unbounded content with a non-empty `end` (unbounded: `any_text`, `triggered_tags`,
 * `tags_with_separator`, and a `sequence` / `or` that ends in one).
 *
 * The stand-in supports the format types `or`, `sequence`, `tag`, `json_schema`, `const_string`,
 * `any_text`, `tags_with_separator` and `triggered_tags` (xgrammar ≥ 0.1.25); the legacy form
 * (`structures` + `triggers`) and other types (`regex`, `grammar`, `qwen_xml_parameter`, token formats,
 * `excludes`) are refused.
 *
 * @throws StructuralTagError naming the offending path (e.g. `format.elements[1].end`).
 */
export function parseStructuralTag(text: string): StructuralTag {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StructuralTagError(`not JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw new StructuralTagError("must be a JSON object");
  if (value.structures !== undefined) {
    throw new StructuralTagError(
      'the legacy form (structures + triggers) is not supported by the stand-in: send {"type": "structural_tag", "format": {...}}',
    );
  }
  if (value.type !== undefined && value.type !== "structural_tag")
    throw new StructuralTagError('type must be "structural_tag"');
  if (value.format === undefined) throw new StructuralTagError("format is required");
  const format = parseFormat(value.format, "format");
  return { type: "structural_tag", format };
}

/** Whether a format can run on without bound (then only an enclosing tag's `end` ends it). */
export function isUnbounded(format: StructuralTagFormat): boolean {
  switch (format.type) {
    case "any_text":
    case "triggered_tags":
    case "tags_with_separator":
      return true;
    case "sequence":
      return isUnbounded(format.elements.at(-1)!);
    case "or":
      return format.elements.some(isUnbounded);
    default:
      return false;
  }
}

function parseFormat(value: unknown, path: string): StructuralTagFormat {
  if (!isObject(value)) throw new StructuralTagError(`${path} must be an object`);
  switch (value.type) {
    case "const_string":
      return { type: "const_string", value: string(value.value, `${path}.value`) };
    case "json_schema": {
      const schema = value.json_schema;
      if (typeof schema !== "boolean" && !isObject(schema))
        throw new StructuralTagError(`${path}.json_schema must be an object or a boolean`);
      if (value.style !== undefined && value.style !== "json")
        throw new StructuralTagError(
          `${path}.style ${JSON.stringify(value.style)} is not supported by the stand-in`,
        );
      return { type: "json_schema", json_schema: schema };
    }
    case "any_text":
      if (value.excludes !== undefined)
        throw new StructuralTagError(`${path}.excludes is not supported by the stand-in`);
      return { type: "any_text" };
    case "sequence":
    case "or":
      return combination(value.type, value.elements, path);
    case "tag":
      return parseTag(value, path);
    case "triggered_tags": {
      const triggers = array(value.triggers, `${path}.triggers`).map((trigger, index) =>
        string(trigger, `${path}.triggers[${index}]`),
      );
      if (triggers.length === 0 || triggers.some((trigger) => trigger === ""))
        throw new StructuralTagError(`${path}.triggers must be non-empty strings, at least one`);
      if (value.excludes !== undefined)
        throw new StructuralTagError(`${path}.excludes is not supported by the stand-in`);
      const tags = parseTags(value.tags, `${path}.tags`);
      tags.forEach((tag, index) => {
        const matching = triggers.filter((trigger) => tag.begin.startsWith(trigger));
        if (matching.length !== 1)
          throw new StructuralTagError(
            `${path}.tags[${index}].begin must start with exactly one trigger (it matches ${matching.length})`,
          );
      });
      return { type: "triggered_tags", triggers, tags, ...flags(value, path) };
    }
    case "tags_with_separator":
      return {
        type: "tags_with_separator",
        tags: parseTags(value.tags, `${path}.tags`),
        separator: string(value.separator, `${path}.separator`),
        ...flags(value, path),
      };
    default:
      throw new StructuralTagError(
        `${path}.type ${JSON.stringify(value.type)} is not supported by the stand-in (or, sequence, tag, json_schema, const_string, any_text, tags_with_separator, triggered_tags)`,
      );
  }
}

function combination(type: "sequence" | "or", value: unknown, path: string): StructuralTagFormat {
  const elements = array(value, `${path}.elements`).map((element, index) =>
    parseFormat(element, `${path}.elements[${index}]`),
  );
  if (elements.length === 0) throw new StructuralTagError(`${path}.elements must not be empty`);
  if (type === "sequence") {
    elements.slice(0, -1).forEach((element, index) => {
      if (isUnbounded(element))
        throw new StructuralTagError(
          `${path}.elements[${index}] is unbounded: only the last element of a sequence may be`,
        );
    });
  } else {
    const unbounded = elements.filter(isUnbounded).length;
    if (unbounded > 0 && unbounded < elements.length)
      throw new StructuralTagError(`${path}: the elements of an or must be all bounded or all unbounded`);
  }
  return { type, elements };
}

function parseTags(value: unknown, path: string): StructuralTagTag[] {
  const tags = array(value, path).map((tag, index) => {
    if (!isObject(tag)) throw new StructuralTagError(`${path}[${index}] must be an object`);
    if (tag.type !== undefined && tag.type !== "tag")
      throw new StructuralTagError(`${path}[${index}].type must be "tag"`);
    return parseTag(tag, `${path}[${index}]`);
  });
  if (tags.length === 0) throw new StructuralTagError(`${path} must not be empty`);
  return tags;
}

function parseTag(value: Json, path: string): StructuralTagTag {
  const begin = string(value.begin, `${path}.begin`);
  if (value.content === undefined) throw new StructuralTagError(`${path}.content is required`);
  const content = parseFormat(value.content, `${path}.content`);
  const end = string(value.end, `${path}.end`);
  if (end === "" && isUnbounded(content))
    throw new StructuralTagError(`${path}.end must not be empty: the content is unbounded`);
  return { type: "tag", begin, content, end };
}

function flags(value: Json, path: string): { at_least_one?: boolean; stop_after_first?: boolean } {
  const out: { at_least_one?: boolean; stop_after_first?: boolean } = {};
  for (const key of ["at_least_one", "stop_after_first"] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== "boolean") throw new StructuralTagError(`${path}.${key} must be a boolean`);
    out[key] = value[key];
  }
  return out;
}

function string(value: unknown, path: string): string {
  if (typeof value !== "string") throw new StructuralTagError(`${path} must be a string`);
  return value;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new StructuralTagError(`${path} must be an array`);
  return value;
}
