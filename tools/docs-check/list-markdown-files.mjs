import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Folders never read: dependencies, build outputs, pending changesets, and every hidden folder. */
const skippedDirs = new Set(["node_modules", "dist", ".changeset", ".turbo", "coverage"]);

/**
 * Every file under `dir` (recursively) whose name `accept` takes, as paths relative to `root`, sorted.
 * Skips hidden folders and those in `skippedDirs`.
 */
export function listFiles(root, accept, dir = root) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || skippedDirs.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...listFiles(root, accept, path));
    else if (entry.isFile() && accept(entry.name)) found.push(relative(root, path));
  }
  return found.sort();
}

/** Every Markdown file under `root` (recursively), as paths relative to `root`, sorted. */
export function listMarkdownFiles(root) {
  return listFiles(root, (name) => name.endsWith(".md"));
}
