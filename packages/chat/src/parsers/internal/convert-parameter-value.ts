import { CanonicalizationError } from "../../canonical/canonicalization-error";
import {
  canonicalNumberLiteral,
  JsonNumberLiteral,
  parseStrictJson,
  type StrictJsonValue,
} from "../../canonical/strict-json";
import type { FunctionTool } from "../../messages/function-tool";
import { parsePythonLiteral } from "./python-literal";

/** JSON-schema value types a text parameter can be converted to. */
export type ParameterType = "string" | "integer" | "number" | "boolean" | "object" | "array" | "null";

/**
 * The JSON schema of parameter `key` of tool `name` (`parameters.properties[key]`), or `undefined` when
 * the tool or the property is unknown.
 */
export function findParameterSchema(tools: readonly FunctionTool[], name: string, key: string): unknown {
  const tool = tools.find((candidate) => candidate.function.name === name);
  const properties = tool?.function.parameters.properties;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return undefined;
  return Object.hasOwn(properties, key) ? (properties as Record<string, unknown>)[key] : undefined;
}

/**
 * The value types a JSON schema allows: `type` (a string or a list), else the union over
 * `anyOf`/`oneOf`/`allOf`, else the types of `enum`/`const` values, else `object` for `properties` and
 * `array` for `items`. Loose names seen in the wild (`int`, `float`, `bool`, `dict`, `list`, `str`) are
 * mapped too, as SGLang does. `undefined` when the schema says nothing about the type.
 */
export function schemaTypes(schema: unknown): Set<ParameterType> | undefined {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return undefined;
  const record = schema as Record<string, unknown>;
  const types = new Set<ParameterType>();
  const declared = record.type;
  for (const name of typeof declared === "string" ? [declared] : Array.isArray(declared) ? declared : []) {
    const mapped = typeof name === "string" ? mapTypeName(name) : undefined;
    if (mapped !== undefined) types.add(mapped);
  }
  if (types.size > 0) return types;
  for (const keyword of ["anyOf", "oneOf", "allOf"]) {
    const variants = record[keyword];
    if (!Array.isArray(variants)) continue;
    for (const variant of variants) for (const type of schemaTypes(variant) ?? []) types.add(type);
  }
  if (types.size > 0) return types;
  const values = Array.isArray(record.enum) ? record.enum : "const" in record ? [record.const] : [];
  for (const value of values) types.add(valueType(value));
  if (types.size > 0) return types;
  if ("properties" in record) return new Set(["object"]);
  if ("items" in record) return new Set(["array"]);
  return undefined;
}

function mapTypeName(name: string): ParameterType | undefined {
  const type = name.trim().toLowerCase();
  if (type === "null") return "null";
  if (["string", "str", "text", "varchar", "char", "enum"].includes(type)) return "string";
  if (["boolean", "bool", "binary"].includes(type)) return "boolean";
  if (/^(int|uint|long|short|unsigned)/.test(type)) return "integer";
  if (/^(num|float|double|decimal)/.test(type)) return "number";
  if (type === "object" || type.startsWith("dict")) return "object";
  if (type === "array" || type === "arr" || type.startsWith("list")) return "array";
  return undefined;
}

function valueType(value: unknown): ParameterType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return Number.isInteger(value) ? "integer" : "number";
    case "object":
      return "object";
    default:
      return "string";
  }
}

const INTEGER = /^[-+]?\d+$/;
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * Converts the raw text of a text-format parameter (`qwen3_coder`'s `<parameter=k>v</parameter>`,
 * `glm45`'s `<arg_value>v</arg_value>`) to a JSON value, typed by the parameter's JSON schema:
 *
 * - only `string` allowed: the raw text, untouched (SGLang's GLM parser would unquote `"x"`; we do not,
 *   because the templates render string values raw);
 * - otherwise, on the trimmed text and in this order: `null`/`None` → null (when `null` is allowed or
 *   `string` is not), `true`/`false` (any case) → boolean, an integer literal → integer, a decimal
 *   literal → number, JSON (then a Python literal) of the right shape → object/array;
 * - nothing matches: the raw text as a string (as SGLang does; the value is not dropped).
 *
 * With no schema, `untyped` decides: `string` keeps the raw text (`qwen3_coder`), `json` tries JSON,
 * then a Python literal, then keeps the raw text (`glm45`/`glm47`).
 */
export function convertParameterValue({
  raw,
  schema,
  untyped,
}: {
  raw: string;
  schema: unknown;
  untyped: "string" | "json";
}): StrictJsonValue {
  const types = schemaTypes(schema);
  const text = raw.trim();
  if (types === undefined) {
    if (untyped === "string") return raw;
    return parseJsonOrPython(text) ?? raw;
  }
  if (types.size === 1 && types.has("string")) return raw;
  if ((types.has("null") || !types.has("string")) && /^(null|none)$/i.test(text)) return null;
  if (types.has("boolean") && /^(true|false)$/i.test(text)) return text.toLowerCase() === "true";
  if ((types.has("integer") || types.has("number")) && INTEGER.test(text)) {
    return numberLiteral(text.replace(/^\+/, ""));
  }
  if (types.has("number") && NUMBER.test(text)) return numberLiteral(text.replace(/^\+/, ""));
  if (types.has("object") || types.has("array")) {
    const value = parseJsonOrPython(text);
    const isArray = Array.isArray(value);
    const isObject =
      typeof value === "object" && value !== null && !isArray && !(value instanceof JsonNumberLiteral);
    if ((isArray && types.has("array")) || (isObject && types.has("object"))) return value as StrictJsonValue;
  }
  return raw;
}

function numberLiteral(text: string): StrictJsonValue | string {
  try {
    const normalised = INTEGER.test(text) ? BigInt(text).toString() : JSON.stringify(Number(text));
    return new JsonNumberLiteral(canonicalNumberLiteral(normalised, "value"));
  } catch (error) {
    if (CanonicalizationError.isInstance(error)) return text;
    throw error;
  }
}

function parseJsonOrPython(text: string): StrictJsonValue | undefined {
  if (text === "") return undefined;
  try {
    return parseStrictJson(text, "value");
  } catch (error) {
    if (!CanonicalizationError.isInstance(error)) throw error;
  }
  const python = parsePythonLiteral(text);
  return python.ok ? python.value : undefined;
}
