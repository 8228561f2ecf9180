/**
 * The key under which an implicitly exported context appears in the custom advantage input and output.
 * The Python Relax uses the key `None`; JSON (and JavaScript objects) cannot hold a `null` key, and
 * Python's `json.dumps({None: …})` writes it as `"null"`, so the string `"null"` is used here. An explicit
 * record may therefore not be named `"null"` (the session becomes non-finalizable, reason
 * `reserved_context_name`), which keeps the key unambiguous. Rows keep the real name: `context_name` is
 * JSON `null` for an implicit export.
 * @see docs/contract.md#custom-advantage, docs/contract.md#deviations
 */
export const IMPLICIT_CONTEXT_KEY = "null";

/** The advantage-mapping key of a context: its name, or {@link IMPLICIT_CONTEXT_KEY} for `null`. */
export function contextKey(name: string | null): string {
  return name ?? IMPLICIT_CONTEXT_KEY;
}
