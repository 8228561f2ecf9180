#!/usr/bin/env node
// Fails when a workspace package depends on another across the allowed one-way edges
// (docs/architecture.md). Core packages never import the app, servers or process packages.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

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
};
const forbiddenInCore = ["hono", "@hono/node-server", "fastify", "execa", "pino"];

let failures = 0;
for (const dir of ["packages"]) {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    const deps = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies });
    const ok = allowed[pkg.name];
    if (!ok) {
      console.error(`check-packages: ${pkg.name} is not in the dependency map (tools/check-packages.mjs)`);
      failures++;
      continue;
    }
    for (const dep of deps) {
      if (dep.startsWith("@relax/") && !ok.includes(dep)) {
        console.error(`check-packages: ${pkg.name} must not depend on ${dep}`);
        failures++;
      }
      if (forbiddenInCore.includes(dep) && pkg.name !== "@relax/launcher") {
        console.error(`check-packages: core package ${pkg.name} must not depend on ${dep}`);
        failures++;
      }
    }
  }
}
if (failures > 0) process.exit(1);
console.log("check-packages: dependency edges ok");
