// Self-check of tools/check-function-length.mjs on small fixture trees (node --test tools/).
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { treeChecker } from "./test-tree.mjs";

/** Writes `files` (path → text) under a fresh directory and runs the check on it. */
const check = treeChecker(
  join(dirname(fileURLToPath(import.meta.url)), "check-function-length.mjs"),
  "check-function-length-",
);

/** A function declaration named `name` spanning exactly `lines` lines (header and closing brace included). */
function declaration(name, lines) {
  const body = Array.from({ length: lines - 2 }, (_, index) => `  const v${index} = ${index};`);
  return [`export function ${name}(): void {`, ...body, "}"].join("\n");
}

test("a function of 120 lines passes", () => {
  const result = check({ "packages/chat/src/a.ts": `${declaration("fits", 120)}\n` });
  assert.deepEqual(result, { status: 0, errors: [] });
});

test("a function of 121 lines fails, naming the file, line and function", () => {
  const result = check({
    "packages/chat/src/a.ts": `${declaration("fits", 120)}\n`,
    "apps/gateway/src/deep/b.ts": `// a comment\n\n${declaration("tooLong", 121)}\n`,
  });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    "check-function-length: apps/gateway/src/deep/b.ts:3 tooLong is 121 lines (at most 120); split it into named functions",
  ]);
});

test("test, declaration and generated files, and files outside src, are not checked", () => {
  const long = `${declaration("tooLong", 200)}\n`;
  const result = check({
    "packages/chat/src/a.test.ts": long,
    "packages/chat/src/a.d.ts": long,
    "packages/chat/src/a.generated.ts": long,
    "packages/chat/test/a.ts": long,
    "packages/chat/bench/a.ts": long,
    "packages/chat/src/node_modules/x/a.ts": long,
  });
  assert.deepEqual(result, { status: 0, errors: [] });
});

test("a nested long arrow function is named by its variable, and counts within its enclosing function too", () => {
  const inner = Array.from({ length: 119 }, (_, index) => `    const v${index} = ${index};`);
  const text = [
    "export function outer(): void {",
    "  const handler = () => {",
    ...inner,
    "  };",
    "  handler();",
    "}",
    "",
  ].join("\n");
  const result = check({ "packages/forest/src/outer.ts": text });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    "check-function-length: packages/forest/src/outer.ts:1 outer is 124 lines (at most 120); split it into named functions",
    "check-function-length: packages/forest/src/outer.ts:2 handler is 121 lines (at most 120); split it into named functions",
  ]);
});
