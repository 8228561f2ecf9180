import { canonicalToolArguments } from "../../canonical/canonical-tool-arguments";
import { CanonicalizationError } from "../../canonical/canonicalization-error";
import type { JsonNode } from "./scan-json";

/** A call read from JSON, or why it is not one. */
export type CallReadResult = { ok: true; name: string; arguments: string } | { ok: false; reason: string };

/**
 * Reads `{"name": "f", "arguments": {...}}` (the Qwen/Hermes/Mistral/Llama call object). `argumentKeys`
 * lists the accepted names of the argument member (Llama 3 also writes `parameters`); a missing argument
 * member means `{}`, any other non-object value is malformed. Duplicate `name`/argument members are
 * malformed too, and the arguments go through `canonicalToolArguments` (strict JSON: no duplicate keys,
 * no lone surrogates).
 */
export function readJsonCall(
  text: string,
  node: JsonNode,
  argumentKeys: readonly string[] = ["arguments"],
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
  if (argumentNode === undefined) return { ok: true, name: nameNode.value, arguments: "{}" };
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
