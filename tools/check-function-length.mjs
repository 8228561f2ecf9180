#!/usr/bin/env node
// Repository check run by `pnpm lint`: no function in the source of packages/ or apps/ (tests, benches,
// scripts and generated files aside) is longer than MAX_LINES lines, counted from the line of its first
// token to the line of its closing brace. Functions nested in a long function count on their own and
// within it. Long functions are split into named, tested ones (docs/architecture.md).
//
//   node tools/check-function-length.mjs [--root <dir>] [--max <lines>]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The longest a source function may be, in lines. */
export const MAX_LINES = 120;

/** The `src` files checked: `.ts`/`.tsx` under `packages/*\/src` and `apps/*\/src`, without tests or generated files. */
export function* checkedFiles(root) {
  for (const top of ["apps", "packages"]) {
    const dir = join(root, top);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const src = join(dir, name, "src");
      if (existsSync(src)) yield* walk(src);
    }
  }
}

function* walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.tsx?$/.test(name) && !/\.(test|d|generated)\.tsx?$/.test(name)) yield path;
  }
}

/** A readable name for a function node: its declared name, the variable or property it is assigned to, or `<anonymous>`. */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name && ts.isPrivateIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (
    parent &&
    ts.isPropertyAssignment(parent) &&
    (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name))
  )
    return parent.name.text;
  if (parent && ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "<anonymous>";
}

/**
 * The functions of one source text longer than `max` lines: `{ name, line, lines }` (`line` 1-based).
 * @param {string} fileName used for the parser's script kind only
 * @param {string} text
 * @param {number} max
 */
export function longFunctions(fileName, text, max = MAX_LINES) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push({ name: nameOf(node), line: start + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (flag) => {
    const index = process.argv.indexOf(flag);
    return index >= 0 ? process.argv[index + 1] : undefined;
  };
  const root = resolve(arg("--root") ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
  const max = Number(arg("--max") ?? MAX_LINES);
  let failures = 0;
  for (const file of checkedFiles(root)) {
    for (const fn of longFunctions(file, readFileSync(file, "utf8"), max)) {
      failures++;
      console.error(
        `check-function-length: ${relative(root, file)}:${fn.line} ${fn.name} is ${fn.lines} lines (at most ${max}); split it into named functions`,
      );
    }
  }
  if (failures > 0) process.exit(1);
  console.log(`check-function-length: no source function over ${max} lines`);
}
