import { canonicalToolArguments } from "../../canonical/canonical-tool-arguments";
import { CanonicalizationError } from "../../canonical/canonicalization-error";
import type { JsonNode } from "./scan-json";

/** A call read from JSON, or why it is not one. */
export type CallReadResult = { ok: true; name: string; arguments: string } | { ok: false; reason: string };

/**
 * The accepted names of the argument member of a JSON call object: `arguments`, and `parameters` as SGLang
 * accepts it for every JSON detector (Llama 3 writes it; Qwen models sometimes do).
 */
export const JSON_CALL_ARGUMENT_KEYS: readonly string[] = Object.freeze(["arguments", "parameters"]);

/**
 * The argument keys for a parser input: {@link JSON_CALL_ARGUMENT_KEYS}, or only `arguments` when the
 * `parameters` alias is switched off (`ToolCallParseInput.parametersAlias: false`).
 */
export function callArgumentKeys(parametersAlias: boolean | undefined): readonly string[] {
  return parametersAlias === false ? ARGUMENTS_ONLY : JSON_CALL_ARGUMENT_KEYS;
}

const ARGUMENTS_ONLY: readonly string[] = Object.freeze(["arguments"]);

/** Members a call object may carry besides `name` and its arguments (Mistral writes an `id`). */
const CALL_METADATA_KEYS: ReadonlySet<string> = new Set(["id", "type", "index", "call_id"]);

/**
 * Reads `{"name": "f", "arguments": {...}}` (the Qwen/Hermes/Mistral/Llama call object). `argumentKeys`
 * lists the accepted names of the argument member (default {@link JSON_CALL_ARGUMENT_KEYS}); an object
 * with only `name` (and metadata such as `id`) means `{}` arguments, but one whose arguments sit under any
 * other key (`"args"`, `"input"`, …) is malformed — never read as `{}`. Any non-object argument value is
 * malformed, duplicate `name`/argument members are too, and the arguments go through
 * `canonicalToolArguments` (strict JSON: no duplicate keys, no lone surrogates).
 */
export function readJsonCall(
  text: string,
  node: JsonNode,
  argumentKeys: readonly string[] = JSON_CALL_ARGUMENT_KEYS,
): CallReadResult {
  if (node.kind !== "object") return { ok: false, reason: `a call must be a JSON object, got ${node.kind}` };
  const names = node.members.filter((member) => member.key === "name");
  if (names.length === 0) return { ok: false, reason: 'the call object has no "name"' };
  if (names.length > 1) return { ok: false, reason: 'duplicate key "name"' };
  const nameNode = names[0]!.value;
  if (nameNode.kind !== "string" || nameNode.value.trim() === "") {
    return { ok: false, reason: '"name" must be a non-empty string' };
  }
  const argumentMembers = node.members.filter((member) => argumentKeys.includes(member.key));
  if (argumentMembers.length > 1) {
    return { ok: false, reason: `more than one of ${argumentKeys.map((k) => `"${k}"`).join(", ")}` };
  }
  const argumentNode = argumentMembers[0]?.value;
  if (argumentNode === undefined) {
    const other = node.members.find((member) => member.key !== "name" && !CALL_METADATA_KEYS.has(member.key));
    if (other !== undefined) {
      return {
        ok: false,
        reason: `the call object has no ${argumentKeys.map((k) => `"${k}"`).join(" or ")} member (found ${JSON.stringify(other.key)})`,
      };
    }
    return { ok: true, name: nameNode.value, arguments: "{}" };
  }
  const read = readJsonArguments(text, argumentNode);
  return read.ok ? { ok: true, name: nameNode.value, arguments: read.arguments } : read;
}

/** Canonical arguments from a JSON node that must be an object. */
export function readJsonArguments(
  text: string,
  node: JsonNode,
): { ok: true; arguments: string } | { ok: false; reason: string } {
  if (node.kind !== "object") {
    return { ok: false, reason: `the arguments must be a JSON object, got ${describe(node)}` };
  }
  return canonicalArguments(slice(text, node));
}

/** `canonicalToolArguments` with its error turned into a failure reason. */
export function canonicalArguments(
  json: string,
): { ok: true; arguments: string } | { ok: false; reason: string } {
  try {
    return { ok: true, arguments: canonicalToolArguments(json) };
  } catch (error) {
    if (CanonicalizationError.isInstance(error))
      return { ok: false, reason: `invalid arguments: ${error.reason}` };
    throw error;
  }
}

function slice(text: string, node: JsonNode): string {
  return text.slice(node.start, node.end);
}

function describe(node: JsonNode): string {
  switch (node.kind) {
    case "array":
      return "an array";
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "null":
      return "null";
    default:
      return "an object";
  }
}
