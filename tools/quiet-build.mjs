#!/usr/bin/env node
// Builds what a root command needs without turbo's and tsup's per-package output (`pnpm demo` runs it first).
//
// Usage: node tools/quiet-build.mjs <phase> [<phase> …]
// where each <phase> is `<label>=<turbo filter>[,<turbo filter>…]`, built in the order given.
//
// For each phase a turbo dry run (`--dry=json`) says which of its build tasks the cache does not hold. When
// none is missing the phase prints nothing (a cached rerun shows no build lines); otherwise it prints one
// line naming what is built and how many packages, then runs turbo with `--output-logs=errors-only`, keeping
// its output in memory. A failed build prints that output (the failing tasks' logs) and exits with turbo's
// status; after the last phase one line gives the time, when anything was built. `RELAX_BUILD_VERBOSE=1` shows turbo's full output instead.
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const turboBin = join(root, "node_modules", ".bin", "turbo");

/**
 * Parses `label=filter,filter` arguments.
 * @param {string[]} args
 * @returns {{ phases: { label: string, filters: string[] }[] }}
 * @throws Error naming the argument when one has no `=` or no filter.
 */
export function parseArgs(args) {
  const phases = [];
  for (const arg of args) {
    const at = arg.indexOf("=");
    const filters =
      at > 0
        ? arg
            .slice(at + 1)
            .split(",")
            .filter((filter) => filter !== "")
        : [];
    if (at <= 0 || filters.length === 0)
      throw new Error(`quiet-build: phase ${JSON.stringify(arg)} must be <label>=<turbo filter>[,<filter>…]`);
    phases.push({ label: arg.slice(0, at), filters });
  }
  if (phases.length === 0) throw new Error("quiet-build: give at least one <label>=<turbo filter> phase");
  return { phases };
}

/**
 * The build tasks of a turbo dry run that have a build script and are not in the cache.
 * @param {{ tasks: { taskId: string, package: string, command: string, cache: { status: string } }[] }} dry
 *   turbo's `--dry=json` answer (turbo 2).
 * @returns {string[]} the package names, sorted.
 */
export function missingBuilds(dry) {
  return dry.tasks
    .filter((task) => task.command !== "<NONEXISTENT>" && task.cache.status !== "HIT")
    .map((task) => task.package)
    .sort();
}

/** `1m 05s` / `12s`. */
function duration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds >= 60
    ? `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`
    : `${seconds}s`;
}

function turboArgs(filters) {
  return ["run", "build", ...filters.map((filter) => `--filter=${filter}`)];
}

function runTurbo(args, { quiet }) {
  return new Promise((resolveRun) => {
    const child = spawn(turboBin, args, {
      cwd: root,
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
      stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    const chunks = [];
    child.stdout?.on("data", (chunk) => chunks.push(chunk));
    child.stderr?.on("data", (chunk) => chunks.push(chunk));
    child.on("error", (error) => resolveRun({ code: 1, output: `${turboBin}: ${error.message}\n` }));
    child.on("close", (code, signal) =>
      resolveRun({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString("utf8") }),
    );
  });
}

async function main() {
  const { phases } = parseArgs(process.argv.slice(2));
  const verbose = process.env.RELAX_BUILD_VERBOSE === "1";
  const total = phases.length;
  let index = 0;
  let built = 0;
  const started = Date.now();
  for (const phase of phases) {
    index += 1;
    const dry = spawnSync(turboBin, [...turboArgs(phase.filters), "--dry=json"], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
    });
    if (dry.status !== 0) {
      process.stderr.write(dry.stdout + dry.stderr);
      process.exit(dry.status ?? 1);
    }
    const missing = missingBuilds(JSON.parse(dry.stdout));
    built += missing.length;
    if (missing.length > 0)
      process.stdout.write(
        `build ${index}/${total}: ${phase.label} (${missing.length} package${missing.length === 1 ? "" : "s"}; ` +
          "the first build takes a few minutes, later runs reuse it)\n",
      );
    // Run even when everything is cached: turbo restores a missing dist/ from its cache.
    const result = await runTurbo([...turboArgs(phase.filters), "--output-logs=errors-only"], {
      quiet: !verbose,
    });
    if (result.code !== 0) {
      process.stderr.write(result.output);
      process.stderr.write(`build ${index}/${total}: ${phase.label} failed (turbo exited ${result.code})\n`);
      process.exit(result.code);
    }
  }
  if (built > 0) process.stdout.write(`build: done in ${duration(Date.now() - started)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
