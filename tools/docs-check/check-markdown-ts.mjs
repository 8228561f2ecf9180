#!/usr/bin/env node
// Typechecks every ```ts / ```typescript / ```tsx block of the repository's Markdown files against the
// built @relax/* packages (their dist/*.d.ts; turbo runs this after `^build`).
//
// Rules (docs/contract.md does not depend on them; they are stated in this package's README.md):
// - each block is its own module (as if it were a file of its own): it must import what it uses, and may
//   `declare const x: T;` for values the reader supplies;
// - a block whose info string contains the word `fragment` (```ts fragment) is skipped;
// - files under node_modules, dist, .changeset, .turbo, coverage and hidden folders are not read.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { listMarkdownFiles } from "./list-markdown-files.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
// Inside node_modules: in the workspace (so @relax/* resolve), but outside biome and git.
const outDir = join(here, "node_modules", ".cache", "docs-check");
const tsLanguages = new Set(["ts", "typescript", "tsx"]);

/**
 * The fenced TypeScript blocks of one Markdown text: `{ line, info, code }`, `line` being the 1-based line
 * of the block's first code line. Fences may be indented (list items); the indentation is removed.
 */
export function extractTsBlocks(markdown) {
  const lines = markdown.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, language, rest] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`);
      if (close.test(lines[j])) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    if (tsLanguages.has(language.toLowerCase())) {
      blocks.push({ line: i + 2, info: `${language}${rest}`.trim(), code: body.join("\n") });
    }
    i = j;
  }
  return blocks;
}

const files = listMarkdownFiles(root);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

/** Generated file name → where its block came from. */
const origins = new Map();
let skipped = 0;
for (const file of files) {
  for (const block of extractTsBlocks(readFileSync(join(root, file), "utf8"))) {
    if (/\bfragment\b/.test(block.info)) {
      skipped++;
      continue;
    }
    const name = `${file.replace(/[^A-Za-z0-9]+/g, "_")}_L${block.line}.ts`;
    // `export {}` keeps a block without imports a module, so blocks never share a global scope.
    writeFileSync(join(outDir, name), `${block.code}\nexport {};\n`);
    origins.set(name, { file, line: block.line });
  }
}

const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023", "DOM", "DOM.Iterable"],
    module: "ESNext",
    moduleResolution: "Bundler",
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    isolatedModules: true,
    types: ["node"],
    typeRoots: [join(here, "node_modules", "@types")],
  },
  include: ["*.ts"],
};
writeFileSync(join(outDir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
let output = "";
let failed = false;
try {
  execFileSync(process.execPath, [tsc, "-p", join(outDir, "tsconfig.json"), "--pretty", "false"], {
    cwd: here,
    encoding: "utf8",
  });
} catch (error) {
  failed = true;
  output = `${error.stdout ?? ""}${error.stderr ?? ""}`;
}

// Map `<generated>.ts(line,col): error …` back to `<file>.md:<line>:<col>: error …`.
const report = output.replace(/^(?:.*[\\/])?([^\\/\s(]+\.ts)\((\d+),(\d+)\)/gm, (match, name, line, col) => {
  const origin = origins.get(name);
  return origin ? `${origin.file}:${origin.line + Number(line) - 1}:${col}` : match;
});
if (failed) {
  process.stderr.write(report);
  process.stderr.write(`\ndocs-check: TypeScript blocks in Markdown do not typecheck (see above)\n`);
  process.exit(1);
}
console.log(
  `docs-check: ${origins.size} TypeScript blocks in ${files.length} Markdown files typecheck (${skipped} marked fragment)`,
);
