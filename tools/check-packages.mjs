#!/usr/bin/env node
// Repository checks run by `pnpm lint` (docs/architecture.md):
// - a workspace package depends on another only across the allowed one-way edges; core packages never
//   import the app, servers or process packages;
// - a package's public surface is its entry files: `exports` holds only `.`, `./internal` (unstable
//   helpers shared inside the workspace), `./testing` (test helpers) and `./package.json`; every code entry
//   is built by tsup; no source file in packages/ or apps/ uses `export *`;
// - nothing imports another package's files by path (`@relax/x/src/...`, `@relax/x/dist/...`) or a subpath
//   that package does not export.
//
//   node tools/check-packages.mjs [--root <dir>]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

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
  "@relax/runtime": [
    "@relax/chat",
    "@relax/forest",
    "@relax/sglang",
    "@relax/standin",
    "@relax/protocol",
    "@relax/launcher",
    "@relax/export",
    "@relax/view",
  ],
};
const forbiddenInCore = ["hono", "@hono/node-server", "fastify", "execa", "pino"];
/** Packages that compose servers and processes (the rest are core and know nothing of either). */
const compositionPackages = ["@relax/launcher", "@relax/runtime"];
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
function fail(message) {
  console.error(`check-packages: ${message}`);
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

if (failures > 0) process.exit(1);
console.log("check-packages: dependency edges, package exports and workspace imports ok");
