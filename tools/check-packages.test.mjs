// Self-check of tools/check-packages.mjs on small fixture workspaces (node --test tools/).
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { treeChecker } from "./test-tree.mjs";

/** Writes `files` (path → text) under a fresh directory and runs the check on it. */
const check = treeChecker(
  join(dirname(fileURLToPath(import.meta.url)), "check-packages.mjs"),
  "check-packages-",
);

const entry = (path) => ({ "@relax/source": `./src/${path}.ts`, types: `./dist/${path}.d.ts` });
/** A clean two-package workspace: chat with `.` and `./internal`, forest importing both. */
const clean = {
  "packages/chat/package.json": JSON.stringify({
    name: "@relax/chat",
    exports: {
      ".": entry("index"),
      "./internal": entry("internal/index"),
      "./package.json": "./package.json",
    },
  }),
  "packages/chat/tsup.config.ts":
    'entry: { index: "src/index.ts", "internal/index": "src/internal/index.ts" }',
  "packages/chat/src/index.ts": 'export { a } from "./a";\nexport type { B } from "./b";\n',
  "packages/chat/src/internal/index.ts": 'export { c } from "../c";\n',
  "packages/chat/src/utils.ts": "export const u = 1;\n",
  "packages/forest/package.json": JSON.stringify({
    name: "@relax/forest",
    dependencies: { "@relax/chat": "workspace:*" },
    exports: { ".": entry("index") },
  }),
  "packages/forest/tsup.config.ts": 'entry: ["src/index.ts"]',
  "packages/forest/src/index.ts":
    'import { a } from "@relax/chat";\nimport { c } from "@relax/chat/internal";\n',
};

test("a clean workspace passes", () => {
  assert.deepEqual(check(clean), { status: 0, errors: [] });
});

test("export * in an entry file fails, with the file and line", () => {
  const result = check({ ...clean, "packages/chat/src/internal/index.ts": 'export * from "../c";\n' });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    'check-packages: packages/chat/src/internal/index.ts:1 uses "export *"; list the exported names',
  ]);
  assert.equal(check({ ...clean, "packages/chat/src/index.ts": 'export type * from "./b";\n' }).status, 1);
});

test("export * in any source file of apps/ or packages/ fails, with the file and line", () => {
  const result = check({
    ...clean,
    "apps/gateway/src/index.ts": 'export { a } from "./a";\nexport * from "./b";\n',
  });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    'check-packages: apps/gateway/src/index.ts:2 uses "export *"; list the exported names',
  ]);
  const nested = check({ ...clean, "packages/forest/src/deep/re-export.ts": 'export type * from "./x";\n' });
  assert.deepEqual(nested.errors, [
    'check-packages: packages/forest/src/deep/re-export.ts:1 uses "export *"; list the exported names',
  ]);
});

test("an exports key other than ., ./internal, ./testing, ./package.json fails", () => {
  const exports = { ".": entry("index"), "./internal": entry("internal/index"), "./utils": entry("utils") };
  const pkg = { name: "@relax/chat", exports };
  const result = check({ ...clean, "packages/chat/package.json": JSON.stringify(pkg) });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    'check-packages: @relax/chat: exports key "./utils" is not allowed (only ., ./internal, ./testing, ./package.json)',
  ]);
});

test("a subpath that tsup does not build fails", () => {
  const result = check({ ...clean, "packages/chat/tsup.config.ts": 'entry: ["src/index.ts"]' });
  assert.deepEqual(result.errors, [
    'check-packages: @relax/chat: exports "./internal" (src/internal/index.ts) is not a tsup entry',
  ]);
});

test("deep imports and unexported subpaths of a workspace package fail", () => {
  const result = check({
    ...clean,
    "apps/gateway/src/main.ts": [
      'import { a } from "@relax/chat/src/a";',
      'import type { B } from "@relax/chat/dist/index.js";',
      'const t = await import("@relax/chat/testing");',
      'import { ok } from "@relax/chat";',
    ].join("\n"),
  });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    'check-packages: apps/gateway/src/main.ts:1 imports "@relax/chat/src/a", which @relax/chat does not export',
    'check-packages: apps/gateway/src/main.ts:2 imports "@relax/chat/dist/index.js", which @relax/chat does not export',
    'check-packages: apps/gateway/src/main.ts:3 imports "@relax/chat/testing", which @relax/chat does not export',
  ]);
});

test("a dependency across a forbidden edge fails", () => {
  const pkg = { name: "@relax/chat", dependencies: { "@relax/forest": "workspace:*" }, exports: {} };
  const result = check({ ...clean, "packages/chat/package.json": JSON.stringify(pkg) });
  assert.deepEqual(result.errors, [
    "check-packages: @relax/chat must not depend on @relax/forest",
    'check-packages: @relax/chat: package.json "exports" must have a "." entry',
    'check-packages: packages/forest/src/index.ts:2 imports "@relax/chat/internal", which @relax/chat does not export',
    // No longer an entry file, src/internal/index.ts is held to the folder rules.
    'check-packages: packages/chat/src/internal/index.ts:1 imports "../c" (src/c) from its ancestor folder src; a child folder never reaches up into its parent: move the shared code into its own folder, or into the child',
  ]);
});

// Folder rules. Fixture files of @relax/forest's `src/`, added to the clean workspace.
const forestSrc = (files) =>
  Object.fromEntries(Object.entries(files).map(([path, text]) => [`packages/forest/src/${path}`, text]));

test("a clean nested layout passes: parents use children, siblings and cousins use each other", () => {
  const result = check({
    ...clean,
    ...forestSrc({
      "index.ts": 'export { a } from "./a";\nexport { b } from "./service/b";\n',
      "a.ts": 'import { b } from "./service/b";\nimport { u } from "./util";\n',
      "service/b.ts": 'import { c } from "./request-class/c";\nimport { u } from "../util/u";\n',
      "service/request-class/c.ts":
        'import { u } from "../../util/u";\nimport data from "./fixtures/d.json";\n',
      "service/request-class/fixtures/d.json": "{}",
      "util/index.ts": 'export { u } from "./u";\n',
      "util/u.ts": 'import { d } from "./d";\n// import { a } from "../a";\nconst s = "from \\"../a\\"";\n',
      "util/d.ts": "export const d = 1;\n",
    }),
  });
  assert.deepEqual(result, { status: 0, errors: [] });
});

test("a two-folder cycle fails, naming both folders and one import per edge", () => {
  const result = check({
    ...clean,
    ...forestSrc({
      "node/forest-node.ts": 'import { s } from "../sample/sample";\n',
      "node/collect.ts": "export const c = 1;\n",
      "sample/sample.ts": 'import { x } from "./x";\nimport { c } from "../node/collect";\n',
      "sample/other.ts": 'import type { N } from "../node/forest-node";\n',
      "sample/x.ts": "export const x = 1;\n",
    }),
  });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    "check-packages: packages/forest: folders src/node, src/sample import each other in a cycle (src/node → src/sample → src/node); edges among them (each lies on a cycle; cut until none is left):",
    "check-packages:   src/node → src/sample (1 import): packages/forest/src/node/forest-node.ts:1 → src/sample/sample.ts",
    "check-packages:   src/sample → src/node (2 imports): packages/forest/src/sample/other.ts:1 → src/node/forest-node.ts",
  ]);
});

test("a three-folder cycle fails, naming the three folders and edges", () => {
  const result = check({
    ...clean,
    ...forestSrc({
      "a/a.ts": 'import { b } from "../b/b";\n',
      "b/b.ts": '\nimport { c } from "../c";\n',
      "c/index.ts": 'export { a } from "../a/a";\n',
      "d/d.ts": 'import { a } from "../a/a";\n',
    }),
  });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    "check-packages: packages/forest: folders src/a, src/b, src/c import each other in a cycle (src/a → src/b → src/c → src/a); edges among them (each lies on a cycle; cut until none is left):",
    "check-packages:   src/a → src/b (1 import): packages/forest/src/a/a.ts:1 → src/b/b.ts",
    "check-packages:   src/b → src/c (1 import): packages/forest/src/b/b.ts:2 → src/c/index.ts",
    "check-packages:   src/c → src/a (1 import): packages/forest/src/c/index.ts:1 → src/a/a.ts",
  ]);
});

test("an import of a file in an ancestor folder fails, with the file, line and fix", () => {
  const result = check({
    ...clean,
    ...forestSrc({
      "service/b.ts": 'import { c } from "./request-class/c";\n',
      "service/request-class/c.ts": 'import { x } from "./x";\nimport { b } from "../b";\n',
      "service/request-class/x.ts": 'export type { T } from "../../types";\n',
      "types.ts": "export type T = number;\n",
    }),
  });
  assert.equal(result.status, 1);
  const fix =
    "a child folder never reaches up into its parent: move the shared code into its own folder, or into the child";
  assert.deepEqual(result.errors, [
    `check-packages: packages/forest/src/service/request-class/c.ts:2 imports "../b" (src/service/b.ts) from its ancestor folder src/service; ${fix}`,
    `check-packages: packages/forest/src/service/request-class/x.ts:1 imports "../../types" (src/types.ts) from its ancestor folder src; ${fix}`,
  ]);
});

test("no file imports its package's entry files, not even a file beside src/index.ts", () => {
  const result = check({
    ...clean,
    ...forestSrc({
      "index.ts": 'export { a } from "./a";\n',
      "a.ts": 'import { b } from "./index";\n',
      "deep/b.ts": 'import { a } from "..";\n',
    }),
    "packages/chat/src/c.ts": 'import { c } from "./internal";\n',
  });
  assert.equal(result.status, 1);
  const fix = "nothing in the package imports its own entry: import the file that defines the name";
  assert.deepEqual(result.errors, [
    `check-packages: packages/chat/src/c.ts:1 imports the package entry src/internal/index.ts ("./internal"); ${fix}`,
    `check-packages: packages/forest/src/a.ts:1 imports the package entry src/index.ts ("./index"); ${fix}`,
    `check-packages: packages/forest/src/deep/b.ts:1 imports the package entry src/index.ts (".."); ${fix}`,
  ]);
});

test("tests, benches and the testing/ folder are exempt from the folder rules", () => {
  const result = check({
    ...clean,
    ...forestSrc({
      "index.ts": 'export { b } from "./b/b";\n',
      "a/a.ts": 'import { b } from "../b/b";\n',
      "a/a.test.ts": 'import { x } from "../index";\nimport { y } from "../y";\n',
      "b/b.ts": "export const b = 1;\n",
      "b/b.test.ts": 'import { a } from "../a/a";\n',
      "b/b.bench.ts": 'import { a } from "../a/a";\n',
      "y.ts": "export const y = 1;\n",
      "testing/index.ts": 'export { fake } from "./fake";\n',
      "testing/fake.ts": 'import { b } from "../index";\nimport { a } from "../a/a";\n',
      "testing/deep/helper.ts": 'import { fake } from "../fake";\nimport { y } from "../../y";\n',
    }),
  });
  assert.deepEqual(result, { status: 0, errors: [] });
});

test("dynamic imports and export ... from count as imports", () => {
  const result = check({
    ...clean,
    ...forestSrc({
      "a/a.ts": 'export async function load() {\n  return await import("../b/b");\n}\n',
      "b/b.ts": 'export { a } from "../a/a";\n',
    }),
  });
  assert.equal(result.status, 1);
  assert.deepEqual(result.errors, [
    "check-packages: packages/forest: folders src/a, src/b import each other in a cycle (src/a → src/b → src/a); edges among them (each lies on a cycle; cut until none is left):",
    "check-packages:   src/a → src/b (1 import): packages/forest/src/a/a.ts:2 → src/b/b.ts",
    "check-packages:   src/b → src/a (1 import): packages/forest/src/b/b.ts:1 → src/a/a.ts",
  ]);
});
