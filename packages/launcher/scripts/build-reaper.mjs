#!/usr/bin/env node
// Compiles native/relax-reaper.c into dist/relax-reaper (+ a .sha256 stamp of the source), after tsup.
// Without a C compiler it says so loudly and leaves the binary out: at run time the launcher then compiles
// the shipped source on first use (if a compiler appeared), or fails with ReaperUnavailableError unless
// process-group supervision was chosen. Set RELAX_REAPER_REQUIRED=1 to make a missing compiler fatal.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "native", "relax-reaper.c");
const output = join(root, "dist", "relax-reaper");
const compiler = process.env.CC ?? "cc";
const temporary = `${output}.${process.pid}.tmp`;

mkdirSync(dirname(output), { recursive: true });
try {
  execFileSync(compiler, ["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", temporary, source], {
    stdio: ["ignore", "inherit", "inherit"],
  });
} catch (error) {
  rmSync(temporary, { force: true });
  const missing = error.code === "ENOENT";
  const message = missing
    ? `no C compiler found ('${compiler}'): dist/relax-reaper was NOT built`
    : `'${compiler}' failed to compile native/relax-reaper.c`;
  console.error(`\n@relax/launcher build: ${message}.`);
  console.error(
    "  Agent sessions need it to reap every descendant; install gcc/cc and rebuild, or launch with\n" +
      '  supervision: "process-group" (orphans then fall to PID 1).\n',
  );
  if (!missing || process.env.RELAX_REAPER_REQUIRED === "1") process.exit(1);
  process.exit(0);
}
chmodSync(temporary, 0o755);
renameSync(temporary, output);
const digest = createHash("sha256").update(readFileSync(source)).digest("hex");
writeFileSync(`${output}.sha256`, `${digest}\n`);
console.log(`@relax/launcher build: dist/relax-reaper compiled with ${compiler}`);
