#!/usr/bin/env node
// Counts the exported names of every workspace package's public entry points (`.`, `./internal`,
// `./testing`), from source with the TypeScript compiler API (the `@relax/source` condition of each
// `exports` entry), so it needs no build. A name counts once per entry point; a name that is both a value
// and a type (a class, a zod schema with a same-named type) counts as a value.
//
// `--usage` also counts, per entry point, how many of its names are used outside the package: imported
// from `@relax/<name>` (or `@relax/<name>/internal`, `/testing`) by a file of apps/, examples/, tools/,
// clients/ or another package in packages/ (its tests and benches included) — a named import, an
// `import type`, a re-export, a `ns.Name` use of an `import * as ns`, or an `import("@relax/x").Name` type.
// The package's own files do not count. `--check` fails (exit 1) when a package's `.` entry has fewer
// than MIN_USED_RATIO of its names used outside, or @relax/runtime's `.` exports more than
// MAX_RUNTIME_NAMES names, and names the package and its unused names (docs/architecture.md: each
// package's index exports what a consumer composes with; the rest is `./internal` or `./testing`).
//
//   node tools/count-exports.mjs [--root <dir>]          table per package and entry point
//   node tools/count-exports.mjs --json                  the same as JSON
//   node tools/count-exports.mjs --names                 also list every name per entry point
//   node tools/count-exports.mjs --usage [--names]       names used outside each package (and the unused)
//   node tools/count-exports.mjs --check                 fail on a `.` entry used below the ratio
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The least share of a package's `.` names that must be used outside it. */
export const MIN_USED_RATIO = 0.6;
/** The most names `@relax/runtime`'s `.` entry may export (it composes; the parts live elsewhere). */
export const MAX_RUNTIME_NAMES = 40;
/** Folders scanned for imports of workspace packages. */
const scannedRoots = ["apps", "examples", "packages", "tools", "clients"];

const argv = process.argv.slice(2);
const args = new Set(argv);
const rootIndex = argv.indexOf("--root");
const root =
  rootIndex >= 0 ? resolve(argv[rootIndex + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The source entry file of one `exports` value, or undefined for non-code entries (JSON files). */
function sourceEntry(value) {
  if (typeof value === "string") return /\.[cm]?tsx?$/.test(value) ? value : undefined;
  if (value && typeof value === "object") return value["@relax/source"];
  return undefined;
}

/** Every code entry point of every package in packages/, and each package's folder by name. */
function readEntries() {
  const entries = [];
  const packageDirs = new Map();
  const packagesDir = join(root, "packages");
  for (const name of existsSync(packagesDir) ? readdirSync(packagesDir).sort() : []) {
    const file = join(packagesDir, name, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    packageDirs.set(join(packagesDir, name), pkg.name);
    for (const [key, value] of Object.entries(pkg.exports ?? {})) {
      const source = sourceEntry(value);
      if (source === undefined) continue;
      entries.push({ pkg: pkg.name, key, file: join(packagesDir, name, source) });
    }
  }
  return { entries, packageDirs };
}

/**
 * The compiler options of the workspace's tsconfig.base.json (bundler resolution without one), without
 * the standard library and global types: exported names need modules resolved, not types checked.
 */
function compilerOptions() {
  const file = join(root, "tsconfig.base.json");
  const options = existsSync(file)
    ? ts.convertCompilerOptionsFromJson(ts.readConfigFile(file, ts.sys.readFile).config.compilerOptions, root)
        .options
    : { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  return { ...options, noEmit: true, noLib: true, types: [] };
}

/** Fills each entry's `values` and `types`: its exported names, sorted. */
function countNames(entries) {
  const program = ts.createProgram({
    rootNames: entries.map((entry) => entry.file),
    options: compilerOptions(),
  });
  const checker = program.getTypeChecker();
  for (const entry of entries) {
    const sourceFile = program.getSourceFile(entry.file);
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
    const values = [];
    const types = [];
    for (const symbol of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const typeOnly = checker.getTypeOnlyAliasDeclaration?.(symbol) !== undefined;
      if (!typeOnly && target.flags & ts.SymbolFlags.Value) values.push(symbol.name);
      else types.push(symbol.name);
    }
    entry.values = values.sort();
    entry.types = types.sort();
  }
}

function* scannedFiles(dir) {
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* scannedFiles(path);
    else if (/\.(?:[cm]?[jt]s|tsx)$/.test(name) && !/\.d\.[cm]?ts$/.test(name)) yield path;
  }
}

/** `@relax/x` → `["@relax/x", "."]`; `@relax/x/internal` → `["@relax/x", "./internal"]`; else undefined. */
function workspaceSpecifier(node) {
  if (!node || !ts.isStringLiteralLike(node)) return undefined;
  const match = /^(@relax\/[a-z0-9-]+)(\/.+)?$/.exec(node.text);
  return match ? [match[1], match[2] ? `.${match[2]}` : "."] : undefined;
}

/** How TypeScript parses `file`: TSX, TS or JavaScript (with JSDoc) by its extension. */
function scriptKindOf(file) {
  if (/\.tsx$/.test(file)) return ts.ScriptKind.TSX;
  return /\.[cm]?ts$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
}

/** The leftmost identifier of `a.b.c` (a qualified name or a property access), or undefined. */
function leftmost(node) {
  while (node && (ts.isQualifiedName(node) || ts.isPropertyAccessExpression(node)))
    node = ts.isQualifiedName(node) ? node.left : node.expression;
  return node && ts.isIdentifier(node) ? node : undefined;
}

/**
 * The workspace names one source file uses: `"@relax/x|<entry>"` → the set of names, from imports,
 * re-exports, `import * as ns` (only the `ns.Name` it reads) and `import("@relax/x").Name` types.
 */
function namesUsedBy(file) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    true,
    scriptKindOf(file),
  );
  const used = new Map();
  /** Local name of an `import * as ns` → its `[package, entry]`. */
  const namespaces = new Map();
  for (const statement of source.statements) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined;
    const target =
      bindings && ts.isNamespaceImport(bindings) && workspaceSpecifier(statement.moduleSpecifier);
    if (target) namespaces.set(bindings.name.text, target);
  }
  const use = (target, name) => {
    const key = target.join("|");
    if (!used.has(key)) used.set(key, new Set());
    used.get(key).add(name);
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const target = workspaceSpecifier(node.moduleSpecifier);
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      if (target && bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings)))
        for (const element of bindings.elements) use(target, (element.propertyName ?? element.name).text);
      if (target && ts.isImportDeclaration(node) && node.importClause?.name) use(target, "default");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const target = workspaceSpecifier(node.argument.literal);
      const first = leftmost(node.qualifier);
      if (target && first) use(target, first.text);
    } else if (ts.isQualifiedName(node) || ts.isPropertyAccessExpression(node)) {
      const left = ts.isQualifiedName(node) ? node.left : node.expression;
      const target = ts.isIdentifier(left) ? namespaces.get(left.text) : undefined;
      if (target) use(target, ts.isQualifiedName(node) ? node.right.text : node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return used;
}

/** The package that owns `file` (a file under one package's folder), or undefined. */
function ownerOf(file, packageDirs) {
  for (const [dir, name] of packageDirs) if (file.startsWith(dir + sep)) return name;
  return undefined;
}

/** Fills each entry's `used`: its names imported by files outside its package, sorted. */
function countUsage(entries, packageDirs) {
  const usedOutside = new Map();
  for (const top of scannedRoots) {
    const dir = join(root, top);
    if (!existsSync(dir)) continue;
    for (const file of scannedFiles(dir)) {
      const owner = ownerOf(file, packageDirs);
      for (const [key, names] of namesUsedBy(file)) {
        if (key.split("|")[0] === owner) continue;
        if (!usedOutside.has(key)) usedOutside.set(key, new Set());
        for (const name of names) usedOutside.get(key).add(name);
      }
    }
  }
  for (const entry of entries) {
    const names = usedOutside.get(`${entry.pkg}|${entry.key}`) ?? new Set();
    entry.used = [...entry.values, ...entry.types].filter((name) => names.has(name)).sort();
    entry.unused = [...entry.values, ...entry.types].filter((name) => !names.has(name)).sort();
  }
}

/** `used / total` of one entry (1 for an entry without names). */
const ratioOf = (entry) => {
  const total = entry.values.length + entry.types.length;
  return total === 0 ? 1 : entry.used.length / total;
};

/** The check's failures, one message per package. */
function checkFailures(entries) {
  const failures = [];
  for (const entry of entries) {
    if (entry.key !== ".") continue;
    const total = entry.values.length + entry.types.length;
    if (ratioOf(entry) < MIN_USED_RATIO) {
      failures.push(
        `${entry.pkg}: ${entry.used.length} of the ${total} names of "." are used outside the package ` +
          `(${ratioOf(entry).toFixed(2)} < ${MIN_USED_RATIO.toFixed(2)}); move the rest to ./internal or ` +
          `./testing, or stop exporting them. Unused: ${entry.unused.join(", ")}`,
      );
    }
    if (entry.pkg === "@relax/runtime" && total > MAX_RUNTIME_NAMES)
      failures.push(`${entry.pkg}: "." exports ${total} names (at most ${MAX_RUNTIME_NAMES})`);
  }
  return failures;
}

function printJson(entries, usage) {
  const out = entries.map((entry) => ({
    package: entry.pkg,
    entry: entry.key,
    values: entry.values.length,
    types: entry.types.length,
    total: entry.values.length + entry.types.length,
    ...(usage ? { usedOutside: entry.used.length, ratio: Number(ratioOf(entry).toFixed(3)) } : {}),
    ...(args.has("--names") ? { names: { values: entry.values, types: entry.types } } : {}),
    ...(usage && args.has("--names") ? { unused: entry.unused } : {}),
  }));
  console.log(JSON.stringify(out, null, 2));
}

function printTable(entries, usage) {
  const head = usage ? " used outside | ratio |" : "";
  console.log(`| package | entry | values | types | total |${head}`);
  console.log(`|---|---|---:|---:|---:|${usage ? "---:|---:|" : ""}`);
  let total = 0;
  let used = 0;
  for (const entry of entries) {
    const { pkg, key, values, types } = entry;
    total += values.length + types.length;
    const cells = usage ? ` ${entry.used.length} | ${ratioOf(entry).toFixed(2)} |` : "";
    if (usage) used += entry.used.length;
    console.log(
      `| ${pkg} | ${key} | ${values.length} | ${types.length} | ${values.length + types.length} |${cells}`,
    );
    const blank = usage ? " | |" : "";
    if (args.has("--names") && !usage) {
      console.log(`|  | values: ${values.join(", ")} | | | |`);
      console.log(`|  | types: ${types.join(", ")} | | | |`);
    }
    if (args.has("--names") && usage && entry.unused.length > 0)
      console.log(`|  | unused: ${entry.unused.join(", ")} | | | |${blank}`);
  }
  const usedCell = usage ? ` **${used}** | **${total === 0 ? "1.00" : (used / total).toFixed(2)}** |` : "";
  console.log(`| **all** | | | | **${total}** |${usedCell}`);
}

const { entries, packageDirs } = readEntries();
countNames(entries);
const usage = args.has("--usage") || args.has("--check");
if (usage) countUsage(entries, packageDirs);

if (args.has("--check")) {
  const failures = checkFailures(entries);
  for (const message of failures) console.error(`count-exports: ${message}`);
  if (failures.length > 0) process.exit(1);
  const dots = entries.filter((entry) => entry.key === ".");
  console.log(
    `count-exports: ${dots.length} packages use ≥ ${MIN_USED_RATIO * 100} % of their "." names outside; ` +
      `@relax/runtime exports ≤ ${MAX_RUNTIME_NAMES}`,
  );
} else if (args.has("--json")) {
  printJson(entries, usage);
} else {
  printTable(entries, usage);
}
