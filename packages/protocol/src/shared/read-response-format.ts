import { isPlainObject } from "./type-name";

/**
 * A structured-output constraint the caller asked for, as SGLang's `json_schema` sampling parameter takes
 * it: the JSON Schema as JSON text. Honoured only when the gateway is told to (`--honor-response-format`).
 */
export interface ResponseFormatConstraint {
  /** Where the request asked for it (`response_format`, `text.format`, `output_config.format`). */
  path: string;
  /** JSON text of the JSON Schema; `{"type":"object"}` for `json_object`. */
  jsonSchema: string;
}

/**
 * Reads a structured-output format: Chat `response_format` (`{type: "json_schema", json_schema: {schema}}`
 * or `{type: "json_object"}`), Responses `text.format` (`{type: "json_schema", schema}`) or Anthropic
 * `output_config.format` / `output_format` (`{type: "json_schema", schema}`). `text` and anything without a
 * schema object give `undefined`.
 */
export function readResponseFormat(value: unknown, path: string): ResponseFormatConstraint | undefined {
  if (!isPlainObject(value)) return undefined;
  if (value.type === "json_object") return { path, jsonSchema: '{"type":"object"}' };
  if (value.type !== "json_schema") return undefined;
  const schema = isPlainObject(value.json_schema) ? value.json_schema.schema : value.schema;
  return isPlainObject(schema) ? { path, jsonSchema: JSON.stringify(schema) } : undefined;
}
