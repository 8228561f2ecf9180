import { stableStringify } from "../../canonical/stable-stringify";
import type { StrictJsonValue } from "../../canonical/strict-json";
import { canonicalArguments } from "./read-json-call";

/** Canonical arguments text from converted parameter values (numbers as `JsonNumberLiteral`s). */
export function buildArguments(
  values: Record<string, StrictJsonValue>,
): { ok: true; arguments: string } | { ok: false; reason: string } {
  return canonicalArguments(stableStringify(values));
}
