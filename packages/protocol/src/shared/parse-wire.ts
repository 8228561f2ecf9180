import { CanonicalizationError, formatFieldPath } from "@relax/chat";
import type { z } from "zod";
import { typeName } from "./type-name";

type Issue = z.core.$ZodIssue & { input?: unknown };

const EXPECTED_NAMES: Record<string, string> = {
  int: "an integer",
  number: "a number",
  string: "a string",
  boolean: "a boolean",
  object: "an object",
  array: "a list",
  record: "an object",
  null: "null",
};

/**
 * Parses a wire value with a zod schema. On failure throws a {@link CanonicalizationError} for the first
 * issue, with the field path in the protocol's terms (`base` + the issue path) and a reason written for
 * people ("is required", "must be a positive integer, got 0"), so the handler answers a 400 naming it.
 *
 * @param base - the path of `value` in the request body (`""` for the body itself).
 * @throws CanonicalizationError
 */
export function parseWire<T extends z.ZodType>(schema: T, value: unknown, base: string): z.output<T> {
  try {
    // zod's `parse` takes its compiled fast path; `safeParse` with options is several times slower,
    // so it runs only to describe a failure (with `reportInput`, so messages can name what was sent).
    return schema.parse(value);
  } catch {
    // described below
  }
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issue = deepestIssue(result.error.issues[0] as Issue);
  const path = formatFieldPath(issue.path, base) || "body";
  throw new CanonicalizationError({ path, reason: describeIssue(issue), cause: result.error });
}

/**
 * For a union that failed, the issue of the branch whose type matched (its issue lies deeper than the
 * union itself), so `[{type: "input_file"}]` against `string | Part[]` reports the part, not "must be a
 * string". The nested path is made absolute.
 */
function deepestIssue(issue: Issue): Issue {
  if (issue.code !== "invalid_union" || "discriminator" in issue) return issue;
  for (const branch of issue.errors) {
    const nested = branch[0] as Issue | undefined;
    if (nested !== undefined && nested.path.length > 0) {
      return deepestIssue({ ...nested, path: [...issue.path, ...nested.path] } as Issue);
    }
  }
  return issue;
}

function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type": {
      if (!("input" in issue) || issue.input === undefined) return "is required";
      const expected = EXPECTED_NAMES[issue.expected] ?? issue.expected;
      return `must be ${expected}, got ${typeName(issue.input)}`;
    }
    case "too_small":
      if (issue.origin === "number" || issue.origin === "int") {
        if (issue.minimum === 0 && !issue.inclusive)
          return `must be a positive integer, got ${String(issue.input)}`;
        return `must be ${issue.inclusive ? "at least" : "greater than"} ${String(issue.minimum)}, got ${String(issue.input)}`;
      }
      if (issue.origin === "string") return "must be a non-empty string";
      return `must have at least ${String(issue.minimum)} item${issue.minimum === 1 ? "" : "s"}`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}, got ${String(issue.input)}`;
    case "invalid_value": {
      const values = issue.values.map((value) => JSON.stringify(value));
      const expected = values.length === 1 ? values[0] : `one of ${values.join(", ")}`;
      return `must be ${expected}, got ${JSON.stringify(issue.input) ?? typeName(issue.input)}`;
    }
    case "invalid_union": {
      if ("discriminator" in issue && typeof issue.discriminator === "string") {
        const options = (issue as { options?: unknown[] }).options ?? [];
        const input = issue.input as Record<string, unknown> | undefined;
        const actual = input?.[issue.discriminator];
        const expected = options.map((option) => JSON.stringify(option)).join(", ");
        return actual === undefined
          ? `is required (one of ${expected})`
          : `unsupported ${issue.discriminator} ${JSON.stringify(actual) ?? typeName(actual)}; expected one of ${expected}`;
      }
      const expected = new Set<string>();
      for (const branch of issue.errors) {
        const first = branch[0];
        if (first?.code === "invalid_type" && first.path.length === 0) {
          expected.add(EXPECTED_NAMES[first.expected] ?? first.expected);
        }
      }
      if (expected.size > 0 && issue.input !== undefined) {
        return `must be ${[...expected].join(" or ")}, got ${typeName(issue.input)}`;
      }
      return "has an unsupported shape";
    }
    default:
      return issue.message;
  }
}
