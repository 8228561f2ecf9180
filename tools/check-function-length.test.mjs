// Self-check of tools/check-function-length.mjs on small fixture trees (node --test tools/).
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { inlineParameterBags, MAX_INLINE_PARAM_FIELDS } from "./check-function-length.mjs";
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

/** An inline object type literal of `count` members, `f0: number; f1: number; ...`. */
const literal = (count) =>
  `{ ${Array.from({ length: count }, (_, index) => `f${index}: number;`).join(" ")} }`;
const bagFix = "give it a named interface with a job, or pass the object that owns these fields";

test("MAX_INLINE_PARAM_FIELDS is 8: a parameter typed with an inline literal of 7 members passes, of 8 fails", () => {
  assert.equal(MAX_INLINE_PARAM_FIELDS, 8);
  assert.deepEqual(inlineParameterBags("a.ts", `function f(options: ${literal(7)}): void {}\n`), []);
  assert.deepEqual(inlineParameterBags("a.ts", `function f(options: ${literal(8)}): void {}\n`), [
    { name: "f", line: 1, parameter: "parameter options", fields: 8 },
  ]);
});

test("an inline parameter type of 8 or more fields fails in functions, methods, arrows and constructors", () => {
  const text = [
    `export function start(launch: ${literal(12)}): void {}`,
    "export class Forest {",
    `  constructor({ f0, f1 }: ${literal(8)}) {}`,
    `  #commit(input: ${literal(11)}): void {}`,
    `  fits(input: ${literal(7)}): void {}`,
    "}",
    `export const handle = async ({ f0 }: ${literal(9)}, other: number) => f0 + other;`,
    "",
  ].join("\n");
  const result = check({ "packages/forest/src/forest.ts": text });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    `check-function-length: packages/forest/src/forest.ts:1 start: parameter launch is a bag of 12 fields (at most 7 inline); ${bagFix}`,
    `check-function-length: packages/forest/src/forest.ts:3 constructor: destructured parameter is a bag of 8 fields (at most 7 inline); ${bagFix}`,
    `check-function-length: packages/forest/src/forest.ts:4 #commit: parameter input is a bag of 11 fields (at most 7 inline); ${bagFix}`,
    `check-function-length: packages/forest/src/forest.ts:7 handle: destructured parameter is a bag of 9 fields (at most 7 inline); ${bagFix}`,
  ]);
});

test("a named parameter type passes whatever its size, and test files are not checked for bags", () => {
  const named = `export interface LaunchOptions ${literal(12)}\nexport function start(options: LaunchOptions): void {}\n`;
  const result = check({
    "packages/launcher/src/start.ts": named,
    "packages/launcher/src/start.test.ts": `const run = (input: ${literal(12)}) => input;\n`,
  });
  assert.deepEqual(result, { status: 0, errors: [] });
});
