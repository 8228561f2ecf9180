import type { ProtocolWarning } from "./protocol";

/**
 * One warning per top-level body key that generation does not use. Keys in `known` get their documented
 * reason; any other key is reported as unknown. Keys whose value is `null` are skipped (clients send
 * `"temperature": null` to mean "unset").
 */
export function collectIgnoredFields({
  body,
  read,
  known,
}: {
  body: Record<string, unknown>;
  /** Fields the converter reads. */
  read: ReadonlySet<string>;
  /** Documented ignored fields and why they are ignored. */
  known: Readonly<Record<string, string>>;
}): ProtocolWarning[] {
  const warnings: ProtocolWarning[] = [];
  for (const key of Object.keys(body)) {
    if (read.has(key) || body[key] === null || body[key] === undefined) continue;
    const reason = Object.hasOwn(known, key) ? known[key] : "not part of the Relax model API";
    warnings.push({ type: "ignored-field", path: key, message: `${key} is ignored: ${reason}` });
  }
  return warnings;
}
