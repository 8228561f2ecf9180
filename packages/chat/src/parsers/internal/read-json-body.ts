import { readJsonArguments } from "./read-json-call";
import { scanJsonValue } from "./scan-json";

/** The reason text for a JSON scan failure; `offset` counts from the first character of the JSON. */
export function jsonFailureReason(reason: string, offset: number): string {
  return `invalid JSON: ${reason} at character ${offset} of the JSON`;
}

/**
 * Reads a block body that must be exactly one JSON object (surrounding whitespace allowed) and returns
 * its canonical arguments. `emptyAsObject` reads an empty body as `{}` (Harmony calls without arguments).
 */
export function readArgumentsBody(
  body: string,
  { emptyAsObject = false }: { emptyAsObject?: boolean } = {},
): { ok: true; arguments: string } | { ok: false; reason: string } {
  const first = body.search(/\S/);
  if (first === -1)
    return emptyAsObject ? { ok: true, arguments: "{}" } : { ok: false, reason: "no arguments" };
  const scan = scanJsonValue(body, first);
  if (!scan.ok) return { ok: false, reason: jsonFailureReason(scan.reason, scan.offset - first) };
  if (body.slice(scan.end).trim() !== "") {
    return { ok: false, reason: "unexpected text after the arguments JSON" };
  }
  return readJsonArguments(body, scan.node);
}
