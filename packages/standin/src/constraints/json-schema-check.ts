import { type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";

/** Checks a parsed JSON value against one schema: `undefined` when valid, else the first error. */
export type JsonSchemaCheck = (value: unknown) => string | undefined;

/**
 * Compiles a JSON Schema (an object, or `true` / `false`) with `@cfworker/json-schema`, in the draft its
 * `$schema` names (draft 2020-12 without one). Standard JSON Schema semantics: an engine may be stricter
 * (xgrammar's strict mode forbids the properties an object schema does not declare).
 *
 * @throws Error when the schema is neither an object nor a boolean.
 */
export function compileJsonSchema(schema: unknown): JsonSchemaCheck {
  if (
    typeof schema !== "boolean" &&
    (typeof schema !== "object" || schema === null || Array.isArray(schema))
  ) {
    throw new Error("a JSON Schema must be an object or a boolean");
  }
  // The validator annotates the schema object it is given: give it its own copy.
  const copy = structuredClone(schema) as Schema | boolean;
  const validator = new Validator(copy, draftOf(copy), true);
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return undefined;
    // The last unit is the innermost failing keyword (the first ones are its enclosing schemas).
    const unit = result.errors.at(-1)!;
    return `${unit.instanceLocation === "#" ? "the value" : unit.instanceLocation.replace(/^#/, "")}: ${unit.error}`;
  };
}

function draftOf(schema: Schema | boolean): SchemaDraft {
  const uri = typeof schema === "object" && typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-07") || uri.includes("draft-06")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}
