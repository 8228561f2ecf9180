import { isPlainObject } from "./type-name";

/**
 * A structured-output constraint the caller asked for, as SGLang's `json_schema` sampling parameter takes
 * it: the JSON Schema as JSON text. Honoured only when the gateway is told to (`--honor-response-format`):
 * as `json_schema` when the turn cannot call a tool, else as a `structural_tag` that allows tool calls or
 * the answer (docs/contract.md#rules-for-every-request).
 */
export interface ResponseFormatConstraint {
  /** Where the request asked for it (`response_format`, `text.format`, `output_config.format`). */
  path: string;
  /** JSON text of the JSON Schema; `{"type":"object"}` for `json_object`. */
  jsonSchema: string;
  /**
   * Set when the request's `tool_choice` forbids tool calls (`"none"`; Anthropic `{type: "none"}`): the
   * schema then constrains the whole turn even though tools are declared.
   */
  toolChoiceNone?: true;
}

/**
 * Reads a structured-output format: Chat `response_format` (`{type: "json_schema", json_schema: {schema}}`
 * or `{type: "json_object"}`), Responses `text.format` (`{type: "json_schema", schema}`) or Anthropic
 * `output_config.format` / `output_format` (`{type: "json_schema", schema}`). `text` and anything without a
 * schema object give `undefined`. `toolChoice` is the request's `tool_choice` (any protocol's spelling):
 * `"none"` or `{type: "none"}` sets {@link ResponseFormatConstraint.toolChoiceNone}.
 */
export function readResponseFormat(
  value: unknown,
  path: string,
  toolChoice?: unknown,
): ResponseFormatConstraint | undefined {
  if (!isPlainObject(value)) return undefined;
  const none = toolChoice === "none" || (isPlainObject(toolChoice) && toolChoice.type === "none");
  const constraint = (jsonSchema: string): ResponseFormatConstraint =>
    none ? { path, jsonSchema, toolChoiceNone: true } : { path, jsonSchema };
  if (value.type === "json_object") return constraint('{"type":"object"}');
  if (value.type !== "json_schema") return undefined;
  const schema = isPlainObject(value.json_schema) ? value.json_schema.schema : value.schema;
  return isPlainObject(schema) ? constraint(JSON.stringify(schema)) : undefined;
}
