import type { StructuralTagFormat } from "@relax/chat";
import { compileJsonSchema } from "./json-schema-check";
import { matchStructuralTag } from "./match-structural-tag";
import { parseStructuralTag } from "./parse-structural-tag";

/** The constrained-decoding parameter of a `/generate` request, compiled once when the request arrives. */
export type OutputConstraint =
  | { kind: "json_schema"; format: Extract<StructuralTagFormat, { type: "json_schema" }> }
  | { kind: "structural_tag"; format: StructuralTagFormat };

/** A constraint parameter the stand-in cannot compile (answered 400, as an engine refuses a bad grammar). */
export class OutputConstraintError extends Error {}

const CONSTRAINT_KEYS = ["json_schema", "regex", "ebnf", "structural_tag"] as const;

/**
 * Reads the constrained-decoding parameter of `sampling_params`: `json_schema` (JSON text of a JSON
 * Schema) or `structural_tag` (xgrammar's format form, see `parseStructuralTag`); `undefined` without one.
 *
 * @throws OutputConstraintError when more than one is set (SGLang allows one), for `regex` / `ebnf` (not
 *   supported by the stand-in), or for a parameter that does not compile.
 */
export function readOutputConstraint(sampling: Record<string, unknown>): OutputConstraint | undefined {
  const present = CONSTRAINT_KEYS.filter((key) => sampling[key] != null);
  if (present.length === 0) return undefined;
  if (present.length > 1)
    throw new OutputConstraintError(
      `Only one of ${CONSTRAINT_KEYS.join(", ")} can be set (got ${present.join(", ")})`,
    );
  const key = present[0]!;
  const value = sampling[key];
  if (key === "regex" || key === "ebnf")
    throw new OutputConstraintError(`sampling_params.${key} is not supported by the stand-in`);
  if (typeof value !== "string")
    throw new OutputConstraintError(`sampling_params.${key} must be a JSON string`);
  if (key === "json_schema") {
    let schema: unknown;
    try {
      schema = JSON.parse(value);
      compileJsonSchema(schema);
    } catch (error) {
      throw new OutputConstraintError(
        `sampling_params.json_schema is not a JSON Schema: ${(error as Error).message}`,
      );
    }
    return {
      kind: "json_schema",
      format: { type: "json_schema", json_schema: schema as Record<string, unknown> },
    };
  }
  try {
    const tag = parseStructuralTag(value);
    compileSchemas(tag.format);
    return { kind: "structural_tag", format: tag.format };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new OutputConstraintError(`sampling_params.structural_tag is invalid: ${error.message}`);
  }
}

/**
 * Checks a policy's output text against the request's constraint, as constrained decoding would have
 * forced it: `undefined` when the text is allowed, else a message naming the parameter, the offset of the
 * first character the constraint forbids, what it allowed there, and the text around it.
 */
export function checkOutputConstraint(constraint: OutputConstraint, text: string): string | undefined {
  const mismatch = matchStructuralTag(constraint.format, text);
  if (mismatch === undefined) return undefined;
  const { offset, expected } = mismatch;
  const around = `${text.slice(Math.max(0, offset - 40), offset)}⟨here⟩${text.slice(offset, offset + 40)}`;
  return (
    `the policy output violates sampling_params.${constraint.kind} at offset ${offset} of ${text.length}: ` +
    `expected ${expected.join(" or ")}; output around it: ${JSON.stringify(around)}`
  );
}

/** Compiles every JSON Schema of a format tree, so that a bad schema is refused when the request arrives. */
function compileSchemas(format: StructuralTagFormat): void {
  switch (format.type) {
    case "json_schema":
      compileJsonSchema(format.json_schema);
      return;
    case "sequence":
    case "or":
      format.elements.forEach(compileSchemas);
      return;
    case "tag":
      compileSchemas(format.content);
      return;
    case "tags_with_separator":
    case "triggered_tags":
      for (const tag of format.tags) compileSchemas(tag.content);
      return;
    default:
      return;
  }
}
