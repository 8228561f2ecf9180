#!/usr/bin/env node
// Checks that source comments and test names stand alone, as check-markdown-links.mjs does for Markdown:
// no text points the reader at the project's spec documents, which are not part of the repository (a
// numbered "seed" or its possessive, the reference notes); "the Python Relax" is named only in a comment
// that states a deliberate deviation and links docs/contract.md#deviations; and every
// `docs/contract.md#<anchor>` names a heading or `<a id>` of docs/contract.md.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { listFiles } from "./list-markdown-files.mjs";
import { markdownAnchors } from "./markdown-anchors.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

/** The folders whose sources are read. */
export const SOURCE_ROOTS = ["packages", "apps", "examples", "clients", "tools"];

/** Source files: TypeScript, JavaScript and Python. */
export const isSourceFile = (name) => /\.(?:[cm]?ts|tsx|[cm]?js|py)$/.test(name);

/** This check and its test, which spell out the patterns they reject. */
const selfFiles = new Set([
  "tools/docs-check/check-source-comments.mjs",
  "tools/docs-check/check-source-comments.test.mjs",
]);

/** References to documents outside the repository, as a reader would be pointed at them. */
const outsideReferences = [
  { pattern: /\bseeds? \d{3}\b/i, what: 'a spec "seed" document' },
  { pattern: /\bseed's\b/i, what: 'the spec "seed" (say what the behaviour is instead)' },
  { pattern: /\bskill seed\b/i, what: 'a spec "seed" document' },
  { pattern: /\breference §/i, what: "the reference notes outside the repository" },
];

const contractLink = /\bdocs\/contract\.md#([A-Za-z0-9_-]+)/g;
const commentLine = /^\s*(?:\/\*\*?|\*|\/\/|#)/;

/**
 * The comment block around line `index` of `lines`: the contiguous comment lines (`/**`, ` *`, `//`, `#`)
 * that hold it, or the line alone when it is not a comment.
 */
function commentBlock(lines, index) {
  if (!commentLine.test(lines[index])) return lines[index];
  let start = index;
  let end = index;
  while (start > 0 && commentLine.test(lines[start - 1])) start -= 1;
  while (end + 1 < lines.length && commentLine.test(lines[end + 1])) end += 1;
  return lines.slice(start, end + 1).join("\n");
}

/**
 * The problems of one source file's text, each as `<file>:<line>: <what>`.
 * @param file - the path reported.
 * @param text - the file's content.
 * @param contractAnchors - the anchors docs/contract.md defines.
 */
export function sourceProblems({ file, text, contractAnchors }) {
  const problems = [];
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    const at = `${file}:${index + 1}`;
    for (const { pattern, what } of outsideReferences) {
      if (pattern.test(line))
        problems.push(`${at}: refers to ${what}; link docs/contract.md#<anchor> instead`);
    }
    if (
      /\bPython Relax\b/.test(line) &&
      !commentBlock(lines, index).includes("docs/contract.md#deviations")
    ) {
      problems.push(
        `${at}: names the Python Relax, which the reader cannot open; state the behaviour, or for a deliberate deviation link docs/contract.md#deviations`,
      );
    }
    for (const match of line.matchAll(contractLink)) {
      if (!contractAnchors.has(match[1])) problems.push(`${at}: docs/contract.md has no anchor #${match[1]}`);
    }
  });
  return problems;
}

function main() {
  const contractAnchors = markdownAnchors(readFileSync(join(root, "docs", "contract.md"), "utf8"));
  const files = SOURCE_ROOTS.filter((dir) => existsSync(join(root, dir)))
    .flatMap((dir) => listFiles(root, isSourceFile, join(root, dir)))
    .filter((file) => !selfFiles.has(file));
  const problems = files.flatMap((file) =>
    sourceProblems({ file, text: readFileSync(join(root, file), "utf8"), contractAnchors }),
  );
  if (problems.length > 0) {
    process.stderr.write(
      `${problems.join("\n")}\n\ndocs-check: source comments refer outside the repository\n`,
    );
    process.exit(1);
  }
  console.log(`docs-check: comments of ${files.length} source files refer only to the repository`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main();
