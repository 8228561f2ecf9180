// Self-check of tools/count-exports.mjs --usage and --check on small fixture workspaces (node --test tools/).
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { treeRunner } from "./test-tree.mjs";

/** Writes `files` (path → text) under a fresh directory and runs the tool on it with `args`. */
const run = treeRunner(join(dirname(fileURLToPath(import.meta.url)), "count-exports.mjs"), "count-exports-");

const entry = (path) => ({ "@relax/source": `./src/${path}.ts`, types: `./dist/${path}.d.ts` });
const pkg = (name, exports) => JSON.stringify({ name, exports });

/**
 * A workspace of three packages. @relax/chat's `.` exports five names (a, b, c, D, E) and `./internal`
 * one (h); outside chat, @relax/forest imports `a` and the type `D`, its test reads `c` through
 * `import * as chat`, and apps/ re-exports `b`: four of five used (0.80). Chat's own test imports `E`,
 * which does not count. The app uses forest's one name and @relax/runtime's one name.
 */
const workspace = {
  "packages/chat/package.json": pkg("@relax/chat", {
    ".": entry("index"),
    "./internal": entry("internal/index"),
    "./package.json": "./package.json",
  }),
  "packages/chat/src/index.ts": [
    'export { a, b, c } from "./values";',
    'export type { D, E } from "./types";',
    "",
  ].join("\n"),
  "packages/chat/src/values.ts": "export const a = 1;\nexport const b = 2;\nexport function c() {}\n",
  "packages/chat/src/types.ts": "export interface D { x: number }\nexport type E = string;\n",
  "packages/chat/src/internal/index.ts": "export const h = 3;\n",
  "packages/chat/test/own.test.ts": 'import { type E, a } from "@relax/chat";\n',
  "packages/forest/package.json": pkg("@relax/forest", { ".": entry("index") }),
  "packages/forest/src/index.ts": [
    'import { a as renamed, type D } from "@relax/chat";',
    "export const f: D = { x: renamed };",
    "",
  ].join("\n"),
  "packages/forest/test/uses-chat.test.ts": ['import * as chat from "@relax/chat";', "chat.c();", ""].join(
    "\n",
  ),
  "packages/runtime/package.json": pkg("@relax/runtime", { ".": entry("index") }),
  "packages/runtime/src/index.ts": "export const start = 1;\n",
  "apps/gateway/src/index.ts": [
    'export { b } from "@relax/chat";',
    'import { f } from "@relax/forest";',
    'import { start } from "@relax/runtime";',
    "",
  ].join("\n"),
};

/** The `--usage --json --names` row of one package's entry. */
function usageOf(files, name, key = ".") {
  const result = run(files, ["--usage", "--json", "--names"]);
  assert.equal(result.status, 0, result.errors.join("\n"));
  return JSON.parse(result.stdout).find((row) => row.package === name && row.entry === key);
}

test("--usage counts imports, type imports, re-exports and namespace reads from outside the package", () => {
  const chat = usageOf(workspace, "@relax/chat");
  assert.equal(chat.total, 5);
  assert.equal(chat.usedOutside, 4);
  assert.equal(chat.ratio, 0.8);
  assert.deepEqual(chat.unused, ["E"]);
  const internal = usageOf(workspace, "@relax/chat", "./internal");
  assert.deepEqual([internal.total, internal.usedOutside], [1, 0]);
});

test("--usage does not count a package's own files, even its tests", () => {
  const files = {
    ...workspace,
    "packages/chat/test/more.test.ts": 'import { h } from "@relax/chat/internal";\n',
  };
  assert.equal(usageOf(files, "@relax/chat", "./internal").usedOutside, 0);
  const outside = { ...workspace, "tools/script.mjs": 'import { h } from "@relax/chat/internal";\n' };
  assert.equal(usageOf(outside, "@relax/chat", "./internal").usedOutside, 1);
});

test('--usage counts a type of import("@relax/x") and a qualified name of a namespace', () => {
  const importType = { ...workspace, "examples/kit/src/types.ts": 'type T = import("@relax/chat").E;\n' };
  assert.equal(usageOf(importType, "@relax/chat").usedOutside, 5);
  const qualified = {
    ...workspace,
    "examples/kit/src/types.ts": 'import type * as chat from "@relax/chat";\nlet u: chat.E;\n',
  };
  assert.equal(usageOf(qualified, "@relax/chat").usedOutside, 5);
});

test("--check passes when every package's . entry is used at 60 % or more", () => {
  const result = run(workspace, ["--check"]);
  assert.deepEqual(result.errors, []);
  assert.equal(result.status, 0);
});

test("--check fails below 60 %, naming the package and its unused names", () => {
  // Without the app, chat's `.` has a, c and D used outside: 3 of 5 (0.60) still passes…
  const app = 'import { f } from "@relax/forest";\nimport { start } from "@relax/runtime";\n';
  const passing = { ...workspace, "apps/gateway/src/index.ts": app };
  assert.equal(run(passing, ["--check"]).status, 0);
  // …and without forest's test, 2 of 5 (0.40) fails.
  const failing = { ...passing, "packages/forest/test/uses-chat.test.ts": "" };
  const result = run(failing, ["--check"]);
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    'count-exports: @relax/chat: 2 of the 5 names of "." are used outside the package (0.40 < 0.60); ' +
      "move the rest to ./internal or ./testing, or stop exporting them. Unused: E, b, c",
  ]);
});

test("--check fails when @relax/runtime's . exports more than 40 names", () => {
  const names = Array.from({ length: 41 }, (_, i) => `n${i}`);
  const files = {
    ...workspace,
    "packages/runtime/src/index.ts": names.map((name) => `export const ${name} = 1;`).join("\n"),
    "apps/gateway/src/index.ts": [
      'export { b } from "@relax/chat";',
      'import { f } from "@relax/forest";',
      `import { ${names.join(", ")} } from "@relax/runtime";`,
    ].join("\n"),
  };
  const result = run(files, ["--check"]);
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, ['count-exports: @relax/runtime: "." exports 41 names (at most 40)']);
  const forty = names.slice(0, 40).map((name) => `export const ${name} = 1;`);
  const passing = { ...files, "packages/runtime/src/index.ts": forty.join("\n") };
  assert.deepEqual(run(passing, ["--check"]).errors, []);
});
