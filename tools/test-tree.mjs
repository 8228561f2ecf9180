// Shared helper of the tools' self-checks (node --test tools/): runs a check script on a fixture tree.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after } from "node:test";

/**
 * Returns `run(files, args)`: writes `files` (path relative to a fresh temporary root → text) and runs
 * `node <script> --root <root> ...args` on it. Returns `{ status, stdout, errors }` (the exit status,
 * stdout, and stderr's non-empty lines). Every root is removed after the test file's last test.
 *
 * @param {string} script absolute path of the script
 * @param {string} prefix prefix of the temporary directories' names
 */
export function treeRunner(script, prefix) {
  const made = [];
  after(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return (files, args = []) => {
    const root = mkdtempSync(join(tmpdir(), prefix));
    made.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const run = spawnSync(process.execPath, [script, "--root", root, ...args], { encoding: "utf8" });
    return { status: run.status, stdout: run.stdout, errors: run.stderr.trim().split("\n").filter(Boolean) };
  };
}

/**
 * Returns `check(files)`: writes `files` (path relative to a fresh temporary root → text) and runs
 * `node <script> --root <root>` on it. Resolves to `{ status, errors }` (the exit status and stderr's
 * non-empty lines). Every root is removed after the test file's last test.
 *
 * @param {string} script absolute path of the check script
 * @param {string} prefix prefix of the temporary directories' names
 */
export function treeChecker(script, prefix) {
  const run = treeRunner(script, prefix);
  return (files) => {
    const { status, errors } = run(files);
    return { status, errors };
  };
}
