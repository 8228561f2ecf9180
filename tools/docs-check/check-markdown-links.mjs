#!/usr/bin/env node
// Checks that the repository's Markdown stands alone: every relative link points at a file of the
// repository (and, into a Markdown file, at a heading or `<a id>` that exists), and no text points the
// reader at the project's spec documents, which are not part of the repository (a numbered "seed",
// `shared/`). check-source-comments.mjs applies the same rule to source comments.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { listMarkdownFiles } from "./list-markdown-files.mjs";
import { markdownAnchors, withoutCodeBlocks } from "./markdown-anchors.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

/** References to documents outside the repository, as a reader would be pointed at them. */
const outsideReferences = [
  { pattern: /\bseeds? \d{3}\b/i, what: 'a spec "seed" document' },
  { pattern: /\.\.\/shared\/|\/work\/shared\b/, what: "the shared folder outside the repository" },
];

const problems = [];
const anchorCache = new Map();
const anchorsOf = (file) => {
  if (!anchorCache.has(file)) anchorCache.set(file, markdownAnchors(readFileSync(file, "utf8")));
  return anchorCache.get(file);
};

const files = listMarkdownFiles(root);
for (const file of files) {
  const markdown = readFileSync(join(root, file), "utf8");
  const lines = withoutCodeBlocks(markdown).split("\n");
  // Line numbers are of the text without code blocks; find the original line by content for the report.
  const originalLine = (text) => markdown.split("\n").indexOf(text) + 1;
  for (const text of lines) {
    for (const { pattern, what } of outsideReferences) {
      if (pattern.test(text)) problems.push(`${file}:${originalLine(text)}: refers to ${what}`);
    }
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [path, fragment] = target.split("#");
      const full = path ? normalize(join(root, dirname(file), decodeURI(path))) : join(root, file);
      if (!full.startsWith(root) || !existsSync(full)) {
        problems.push(`${file}:${originalLine(text)}: link to ${target}: no such file in the repository`);
      } else if (fragment && full.endsWith(".md") && !anchorsOf(full).has(fragment)) {
        problems.push(
          `${file}:${originalLine(text)}: link to ${target}: ${relative(root, full)} has no anchor #${fragment}`,
        );
      }
    }
  }
}

if (problems.length > 0) {
  process.stderr.write(`${problems.join("\n")}\n\ndocs-check: Markdown links or references are broken\n`);
  process.exit(1);
}
console.log(`docs-check: links and references of ${files.length} Markdown files are inside the repository`);
