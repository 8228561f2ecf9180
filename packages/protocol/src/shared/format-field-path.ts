/**
 * Joins a base path and zod-style path segments into the dotted/bracketed form used in error messages:
 * `formatFieldPath("input", [3, "content", 0, "type"])` → `input[3].content[0].type`.
 */
export function formatFieldPath(base: string, segments: readonly PropertyKey[]): string {
  let path = base;
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else path += path.length === 0 ? String(segment) : `.${String(segment)}`;
  }
  return path;
}
