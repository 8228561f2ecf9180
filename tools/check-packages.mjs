#!/usr/bin/env node
// Repository checks run by `pnpm lint` (docs/architecture.md):
// - a workspace package depends on another only across the allowed one-way edges; core packages never
//   import the app, servers or process packages;
// - a package's public surface is its entry files: `exports` holds only `.`, `./internal` (unstable
//   helpers shared inside the workspace), `./testing` (test helpers) and `./package.json`; every code entry
//   is built by tsup; no source file in packages/ or apps/ uses `export *`;
// - nothing imports another package's files by path (`@relax/x/src/...`, `@relax/x/dist/...`) or a subpath
//   that package does not export;
// - folder rules, inside the `src/` of every package in packages/ and apps/ (tests, benches and the
//   `testing/` folder aside): the folders' relative imports form no cycle; a file never imports a file of
//   one of its ancestor folders (a child folder is a part of its parent: parents use children, children
//   never reach up), and never imports its package's entry files (`src/index.ts`, the `exports` sources).
//
//   node tools/check-packages.mjs [--root <dir>]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Allowed @relax/* dependencies per package. */
const allowed = {
  "@relax/chat": [],
  "@relax/forest": ["@relax/chat"],
  "@relax/sglang": [],
  "@relax/standin": ["@relax/chat", "@relax/sglang"],
  "@relax/protocol": ["@relax/chat"],
  "@relax/launcher": [],
  "@relax/export": ["@relax/chat", "@relax/forest"],
  "@relax/view": ["@relax/chat", "@relax/forest", "@relax/export"],
  "@relax/agent-api": ["@relax/chat", "@relax/forest", "@relax/protocol", "@relax/sglang"],
  "@relax/rollout": [
    "@relax/agent-api",
    "@relax/chat",
    "@relax/forest",
    "@relax/sglang",
    "@relax/protocol",
    "@relax/launcher",
    "@relax/export",
    "@relax/view",
  ],
  "@relax/runtime": [
    "@relax/agent-api",
    "@relax/rollout",
    "@relax/chat",
    "@relax/forest",
    "@relax/sglang",
    "@relax/protocol",
    "@relax/launcher",
    "@relax/export",
  ],
};
const forbiddenInCore = ["hono", "@hono/node-server", "fastify", "execa", "pino"];
/** Packages that compose servers and processes (the rest are core and know nothing of either). */
const compositionPackages = ["@relax/launcher", "@relax/agent-api", "@relax/rollout", "@relax/runtime"];
/** The only `exports` keys a package may have. */
const allowedExportKeys = [".", "./internal", "./testing", "./package.json"];
/** Folders whose sources are scanned for imports of workspace packages. */
const sourceRoots = ["apps", "examples", "packages"];

const rootIndex = process.argv.indexOf("--root");
const root =
  rootIndex >= 0
    ? resolve(process.argv[rootIndex + 1])
    : resolve(dirname(fileURLToPath(import.meta.url)), "..");

let failures = 0;
/** Reports one failure; every line of a multi-line `message` gets the `check-packages:` prefix. */
function fail(message) {
  for (const line of message.split("\n")) console.error(`check-packages: ${line}`);
  failures++;
}

/** The source entry file of one `exports` value (`@relax/source` condition), or undefined. */
function sourceEntry(value) {
  if (typeof value === "string") return /\.[cm]?tsx?$/.test(value) ? value : undefined;
  if (value && typeof value === "object") return value["@relax/source"];
  return undefined;
}

/** Package name → its `exports` keys, for every workspace package. */
const workspaceExports = new Map();

const packagesDir = join(root, "packages");
for (const name of existsSync(packagesDir) ? readdirSync(packagesDir).sort() : []) {
  const dir = join(packagesDir, name);
  const file = join(dir, "package.json");
  if (!existsSync(file)) continue;
  const pkg = JSON.parse(readFileSync(file, "utf8"));
  workspaceExports.set(pkg.name, Object.keys(pkg.exports ?? {}));

  // Dependency edges
  const deps = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies });
  const ok = allowed[pkg.name];
  if (!ok) {
    fail(`${pkg.name} is not in the dependency map (tools/check-packages.mjs)`);
  } else {
    for (const dep of deps) {
      if (dep.startsWith("@relax/") && !ok.includes(dep)) fail(`${pkg.name} must not depend on ${dep}`);
      if (forbiddenInCore.includes(dep) && !compositionPackages.includes(pkg.name))
        fail(`core package ${pkg.name} must not depend on ${dep}`);
    }
  }

  // Public surface
  if (!pkg.exports || typeof pkg.exports !== "object" || !pkg.exports["."])
    fail(`${pkg.name}: package.json "exports" must have a "." entry`);
  const tsup = existsSync(join(dir, "tsup.config.ts"))
    ? readFileSync(join(dir, "tsup.config.ts"), "utf8")
    : "";
  for (const [key, value] of Object.entries(pkg.exports ?? {})) {
    if (!allowedExportKeys.includes(key)) {
      fail(`${pkg.name}: exports key "${key}" is not allowed (only ${allowedExportKeys.join(", ")})`);
      continue;
    }
    if (key === "./package.json") continue;
    const source = sourceEntry(value);
    if (source === undefined || !existsSync(join(dir, source))) {
      fail(`${pkg.name}: exports "${key}" needs an existing "@relax/source" entry file`);
      continue;
    }
    const entry = source.replace(/^\.\//, "");
    if (!tsup.includes(`"${entry}"`)) fail(`${pkg.name}: exports "${key}" (${entry}) is not a tsup entry`);
  }
}

// Deep and unexported subpath imports of workspace packages
function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(?:[cm]?[jt]s|tsx)$/.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}
const specifier =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["'](@relax\/[a-z0-9-]+)(\/[^"']*)?["']/g;
for (const top of sourceRoots) {
  const dir = join(root, top);
  if (!existsSync(dir)) continue;
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(specifier)) {
      const [, name, subpath] = match;
      const keys = workspaceExports.get(name);
      if (!keys || subpath === undefined) continue;
      if (keys.includes(`.${subpath}`)) continue;
      const line = text.slice(0, match.index).split("\n").length;
      fail(`${relative(root, file)}:${line} imports "${name}${subpath}", which ${name} does not export`);
    }
  }
}

// No `export *` in any source file of packages/ or apps/ (entry files included): every re-export names
// what it exports, so a package's surface is read in one place.
for (const top of ["apps", "packages"]) {
  const dir = join(root, top);
  if (!existsSync(dir)) continue;
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, "utf8");
    for (const [index, line] of text.split("\n").entries()) {
      if (/^\s*export\s+(type\s+)?\*/.test(line))
        fail(`${relative(root, file)}:${index + 1} uses "export *"; list the exported names`);
    }
  }
}

// Folder rules, inside the `src/` of each package of packages/ and apps/. A folder is the directory of a
// file relative to `src` ("" for `src` itself; messages show it as `src`). Every relative import of a file
// (static, dynamic, `export ... from`, type-only included) in another folder is an edge of the package's
// folder graph. Files in `src/testing/` may import anything of their package, and the entry files re-export
// from anywhere: neither is a source of edges. An import that fails the upward or entry rule is reported
// there and left out of the graph, so every import is reported by one rule at most.

/** Shows a `src`-relative folder as a path from the package's directory (`src`, `src/service`). */
const showFolder = (folder) => (folder === "" ? "src" : `src/${folder}`);

/** The folder of a `src`-relative file path: its directory, "" for a file directly in `src`. */
function folderOf(path) {
  const folder = posix.dirname(path);
  return folder === "." ? "" : folder;
}

/** Whether `ancestor` is a strict ancestor of `folder` (`src` itself, "", is the ancestor of every other folder). */
function isAncestor(ancestor, folder) {
  return ancestor !== folder && (ancestor === "" || folder.startsWith(`${ancestor}/`));
}

/** Whether a `src`-relative folder is `testing/` or inside it. */
const isTestingFolder = (folder) => folder === "testing" || folder.startsWith("testing/");

/** The files the folder rules read under `dir`: `.ts`/`.tsx` sources, without tests, benches or declarations. */
function* folderRuleFiles(dir) {
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* folderRuleFiles(path);
    else if (/\.[cm]?tsx?$/.test(name) && !/\.(?:test|bench|d)\.[cm]?tsx?$/.test(name)) yield path;
  }
}

/**
 * The `src`-relative paths of a package's entry files: `index.ts` and the source file of every `exports`
 * entry under `src/` (`internal/index.ts`, `testing/index.ts`).
 *
 * @param {object | undefined} pkg the package's parsed package.json
 */
function entryFiles(pkg) {
  const entries = new Set(["index.ts"]);
  for (const value of Object.values(pkg?.exports ?? {})) {
    const source = sourceEntry(value);
    if (source?.startsWith("./src/")) entries.add(source.slice("./src/".length));
  }
  return entries;
}

/**
 * The relative imports of one source text, comments and strings aside: `{ specifier, line }` (`line`
 * 1-based, the line of the specifier) for every `import ... from`, `import(...)`, `export ... from`, bare
 * `import "..."` and `require(...)`.
 */
function relativeImports(text) {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter(({ fileName }) => /^\.\.?(?:\/|$)/.test(fileName))
    .map(({ fileName, pos }) => ({ specifier: fileName, line: text.slice(0, pos).split("\n").length }));
}

/**
 * The file a relative import names, as an absolute path: the first existing file of the path itself, the
 * path with `.ts`/`.tsx`, its `index.ts`/`index.tsx`, or its `.js` spelling as `.ts`. An import that
 * resolves to nothing (the type checker reports it) is taken as naming a file at that path.
 */
function resolveImport(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    join(base, "index.ts"),
    join(base, "index.tsx"),
    base.replace(/\.([cm]?)js(x?)$/, ".$1ts$2"),
  ];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? base;
}

/**
 * Reads the relative imports of one package's `src/`, fails every import of an entry file or of a file in
 * an ancestor folder, and returns the folder graph of the other imports across folders: folder → imported
 * folder → the imports that make the edge (`{ where, target }`: `file:line` from the root and the
 * `src`-relative target), in file and line order.
 *
 * @param {string} dir the package's directory (it has a `src/` folder)
 * @param {Set<string>} entries the package's entry files ({@link entryFiles})
 */
function folderGraph(dir, entries) {
  const src = join(dir, "src");
  const srcPath = (file) => relative(src, file).split(sep).join("/");
  const graph = new Map();
  for (const file of folderRuleFiles(src)) {
    const path = srcPath(file);
    const from = folderOf(path);
    if (entries.has(path) || isTestingFolder(from)) continue;
    for (const { specifier, line } of relativeImports(readFileSync(file, "utf8"))) {
      const target = srcPath(resolveImport(file, specifier));
      if (target.startsWith("../")) continue; // outside src/: not a folder of the package
      const to = folderOf(target);
      const where = `${relative(root, file)}:${line}`;
      if (entries.has(target)) {
        fail(
          `${where} imports the package entry src/${target} ("${specifier}"); nothing in the package ` +
            "imports its own entry: import the file that defines the name",
        );
      } else if (isAncestor(to, from)) {
        fail(
          `${where} imports "${specifier}" (src/${target}) from its ancestor folder ${showFolder(to)}; a ` +
            "child folder never reaches up into its parent: move the shared code into its own folder, or into the child",
        );
      } else if (to !== from) {
        if (!graph.has(from)) graph.set(from, new Map());
        const edges = graph.get(from);
        if (!edges.has(to)) edges.set(to, []);
        edges.get(to).push({ where, target });
      }
    }
  }
  return graph;
}

/**
 * The strongly connected components of a folder graph that hold more than one folder (Tarjan's
 * algorithm), each as its sorted folders; every edge between two folders of one component lies on a cycle.
 *
 * @param {Map<string, Map<string, unknown>>} graph folder → imported folder → anything
 */
function folderCycles(graph) {
  const index = new Map();
  const lowLink = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (folder) => {
    index.set(folder, index.size);
    lowLink.set(folder, index.get(folder));
    stack.push(folder);
    onStack.add(folder);
    for (const next of graph.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(folder, Math.min(lowLink.get(folder), lowLink.get(next)));
      } else if (onStack.has(next)) {
        lowLink.set(folder, Math.min(lowLink.get(folder), index.get(next)));
      }
    }
    if (lowLink.get(folder) !== index.get(folder)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) components.push(component.sort());
  };
  for (const folder of [...graph.keys()].sort()) if (!index.has(folder)) visit(folder);
  return components.sort((a, b) => a[0].localeCompare(b[0]));
}

/**
 * A shortest cycle from `start` back to `start` through the folders of `component` (breadth first), as
 * its folders with `start` at both ends.
 */
function shortestCycle(graph, component, start) {
  const inside = new Set(component);
  const previous = new Map();
  const queue = [start];
  for (const folder of queue) {
    for (const next of [...(graph.get(folder)?.keys() ?? [])].sort()) {
      if (next === start) {
        const path = [start];
        for (let at = folder; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (inside.has(next) && !previous.has(next)) {
        previous.set(next, folder);
        queue.push(next);
      }
    }
  }
  return [start];
}

/**
 * Fails one folder cycle of a package: names its folders and a shortest cycle, then every edge between
 * them (each on a cycle) with its number of imports and the first of them, so a maintainer sees where to cut.
 */
function failFolderCycle(dir, graph, component) {
  const cycle = shortestCycle(graph, component, component[0]).map(showFolder).join(" → ");
  const lines = [
    `${relative(root, dir)}: folders ${component.map(showFolder).join(", ")} import each other in a cycle ` +
      `(${cycle}); edges among them (each lies on a cycle; cut until none is left):`,
  ];
  for (const from of component) {
    for (const to of [...graph.get(from).keys()].sort()) {
      if (!component.includes(to)) continue;
      const imports = graph.get(from).get(to);
      const count = imports.length === 1 ? "1 import" : `${imports.length} imports`;
      lines.push(
        `  ${showFolder(from)} → ${showFolder(to)} (${count}): ${imports[0].where} → src/${imports[0].target}`,
      );
    }
  }
  fail(lines.join("\n"));
}

for (const top of ["packages", "apps"]) {
  const topDir = join(root, top);
  for (const name of existsSync(topDir) ? readdirSync(topDir).sort() : []) {
    const dir = join(topDir, name);
    if (!existsSync(join(dir, "src")) || !statSync(join(dir, "src")).isDirectory()) continue;
    const pkgFile = join(dir, "package.json");
    const pkg = existsSync(pkgFile) ? JSON.parse(readFileSync(pkgFile, "utf8")) : undefined;
    const graph = folderGraph(dir, entryFiles(pkg));
    for (const component of folderCycles(graph)) failFolderCycle(dir, graph, component);
  }
}

if (failures > 0) process.exit(1);
console.log("check-packages: dependency edges, package exports, workspace imports and folder rules ok");
