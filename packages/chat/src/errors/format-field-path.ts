/**
 * Joins a zod issue path (optionally under a base path) into the dotted/bracketed form every Relax error
 * message uses: `formatFieldPath(["meta_info", "output_token_logprobs", 3, 1])` →
 * `meta_info.output_token_logprobs[3][1]`, `formatFieldPath([3, "content"], "input")` → `input[3].content`.
 * Returns `base` (possibly `""`) for an empty path; callers pick their own fallback (`"body"`, `"(root)"`).
 */
export function formatFieldPath(path: readonly PropertyKey[], base = ""): string {
  let text = base;
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text.length === 0 ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
