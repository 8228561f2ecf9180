#!/usr/bin/env node
// Repository check run by `pnpm lint`: no function in the source of packages/ or apps/ (tests, benches,
// scripts and generated files aside) is longer than MAX_LINES lines, counted from the line of its first
// token to the line of its closing brace. Functions nested in a long function count on their own and
// within it. Long functions are split into named, tested ones (docs/architecture.md).
// Nor does a function, method or arrow (or a signature of one) take a parameter typed with an inline object
// literal of MAX_INLINE_PARAM_FIELDS members or more (`(options: { a: A; b: B; ... })`, destructured or
// not): such a bag of fields gets a named interface with a job, or the function takes the object that owns
// the fields.
//
//   node tools/check-function-length.mjs [--root <dir>] [--max <lines>] [--max-fields <members>]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The longest a source function may be, in lines. */
export const MAX_LINES = 120;

/** A parameter typed with an inline object literal of this many members or more fails (8: seven pass). */
export const MAX_INLINE_PARAM_FIELDS = 8;

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
  if (parent && ts.isTypeAliasDeclaration(parent)) return parent.name.text;
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

/**
 * The parameters of one source text typed with an inline object literal of `max` members or more, in any
 * function-like node (declarations, methods, arrows, function expressions, constructors, signatures and
 * function types): `{ name, line, parameter, fields }` (`name` and `line`, 1-based, of the function;
 * `parameter` names the parameter: `parameter options` or `destructured parameter`; `fields` counts the
 * literal's members).
 * @param {string} fileName used for the parser's script kind only
 * @param {string} text
 * @param {number} max
 */
export function inlineParameterBags(fileName, text, max = MAX_INLINE_PARAM_FIELDS) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node)) {
      for (const parameter of node.parameters) {
        if (!parameter.type || !ts.isTypeLiteralNode(parameter.type)) continue;
        const fields = parameter.type.members.length;
        if (fields < max) continue;
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        const name = ts.isIdentifier(parameter.name)
          ? `parameter ${parameter.name.text}`
          : "destructured parameter";
        found.push({ name: nameOf(node), line, parameter: name, fields });
      }
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
  const maxFields = Number(arg("--max-fields") ?? MAX_INLINE_PARAM_FIELDS);
  let failures = 0;
  for (const file of checkedFiles(root)) {
    const text = readFileSync(file, "utf8");
    for (const fn of longFunctions(file, text, max)) {
      failures++;
      console.error(
        `check-function-length: ${relative(root, file)}:${fn.line} ${fn.name} is ${fn.lines} lines (at most ${max}); split it into named functions`,
      );
    }
    for (const bag of inlineParameterBags(file, text, maxFields)) {
      failures++;
      console.error(
        `check-function-length: ${relative(root, file)}:${bag.line} ${bag.name}: ${bag.parameter} is a bag of ${bag.fields} fields (at most ${maxFields - 1} inline); give it a named interface with a job, or pass the object that owns these fields`,
      );
    }
  }
  if (failures > 0) process.exit(1);
  console.log(
    `check-function-length: no source function over ${max} lines, and no inline parameter type of ${maxFields} fields or more`,
  );
}
