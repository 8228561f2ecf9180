/**
 * Joins a zod issue path (optionally under a base path) as `input.images[0].url`: the launcher's private
 * copy of `@relax/chat`'s `formatFieldPath` (same output; this package depends on no other Relax package).
 */
export function formatFieldPath(path: readonly PropertyKey[], base = ""): string {
  let text = base;
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text.length === 0 ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
