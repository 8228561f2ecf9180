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
  ]);
});
