#!/usr/bin/env node
// Counts the exported names of every workspace package's public entry points (`.`, `./internal`,
// `./testing`), from source with the TypeScript compiler API (the `@relax/source` condition of each
// `exports` entry), so it needs no build. A name counts once per entry point; a name that is both a value
// and a type (a class, a zod schema with a same-named type) counts as a value.
//
//   node tools/count-exports.mjs            table per package and entry point
//   node tools/count-exports.mjs --json     the same as JSON
//   node tools/count-exports.mjs --names    also list every name per entry point
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));

/** The source entry file of one `exports` value, or undefined for non-code entries (JSON files). */
function sourceEntry(value) {
  if (typeof value === "string") return /\.[cm]?tsx?$/.test(value) ? value : undefined;
  if (value && typeof value === "object") return value["@relax/source"];
  return undefined;
}

const entries = [];
for (const name of readdirSync(join(root, "packages")).sort()) {
  const file = join(root, "packages", name, "package.json");
  if (!existsSync(file)) continue;
  const pkg = JSON.parse(readFileSync(file, "utf8"));
  for (const [key, value] of Object.entries(pkg.exports ?? {})) {
    const source = sourceEntry(value);
    if (source === undefined) continue;
    entries.push({ pkg: pkg.name, key, file: join(root, "packages", name, source) });
  }
}

const config = ts.readConfigFile(join(root, "tsconfig.base.json"), ts.sys.readFile).config;
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);
const program = ts.createProgram({
  rootNames: entries.map((entry) => entry.file),
  options: { ...options, noEmit: true },
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

if (args.has("--json")) {
  const out = entries.map(({ pkg, key, values, types }) => ({
    package: pkg,
    entry: key,
    values: values.length,
    types: types.length,
    total: values.length + types.length,
    ...(args.has("--names") ? { names: { values, types } } : {}),
  }));
  console.log(JSON.stringify(out, null, 2));
} else {
  console.log("| package | entry | values | types | total |");
  console.log("|---|---|---:|---:|---:|");
  let total = 0;
  for (const { pkg, key, values, types } of entries) {
    total += values.length + types.length;
    console.log(`| ${pkg} | ${key} | ${values.length} | ${types.length} | ${values.length + types.length} |`);
    if (args.has("--names")) {
      console.log(`|  | values: ${values.join(", ")} | | | |`);
      console.log(`|  | types: ${types.join(", ")} | | | |`);
    }
  }
  console.log(`| **all** | | | | **${total}** |`);
}
