import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Folders never read: dependencies, build outputs, pending changesets, and every hidden folder. */
const skippedDirs = new Set(["node_modules", "dist", ".changeset", ".turbo", "coverage"]);

/** Every Markdown file under `root` (recursively), as paths relative to `root`, sorted. */
export function listMarkdownFiles(root, dir = root) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || skippedDirs.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...listMarkdownFiles(root, path));
    else if (entry.isFile() && entry.name.endsWith(".md")) found.push(relative(root, path));
  }
  return found.sort();
}
