#!/usr/bin/env node
// Relax recipe for Claude Code: maps the RELAX_* session contract onto Claude Code's own settings and
// runs it once, non-interactively, on the session's prompt. See README.md.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const env = process.env;
const need = (name) => {
  const value = env[name];
  if (value === undefined || value === "")
    throw new Error(`${name} is not set (run this under relax rollout)`);
  return value;
};
const ioDir = need("RELAX_SESSION_IO_DIR");
const input = JSON.parse(readFileSync(need("RELAX_INPUT_JSON"), "utf8"));
const text = (content) =>
  typeof content === "string"
    ? content
    : content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
const prompt = input.messages
  .filter((m) => m.role === "user")
  .map((m) => text(m.content))
  .join("\n\n");
const system = input.messages
  .filter((m) => m.role === "system")
  .map((m) => text(m.content))
  .join("\n\n");

// Working directory and HOME under the session folder: Claude Code writes ~/.claude.json and ~/.claude/.
const workDir = join(ioDir, "work");
const home = join(ioDir, "home");
mkdirSync(workDir, { recursive: true });
mkdirSync(home, { recursive: true });

const bin =
  env.CLAUDE_CODE_BIN ??
  join(
    dirname(createRequire(import.meta.url).resolve("@anthropic-ai/claude-code/package.json")),
    "bin/claude.exe",
  );
const model = env.HARNESS_MODEL ?? "relax-policy";
const args = ["-p", prompt, "--output-format", "json", "--model", model, "--dangerously-skip-permissions"];
if (system !== "") args.push("--append-system-prompt", system);
const result = spawnSync(bin, args, {
  cwd: workDir,
  stdio: ["ignore", "pipe", "inherit"],
  encoding: "utf8",
  timeout: Number(env.HARNESS_TIMEOUT_MS ?? 600_000),
  env: {
    ...env,
    HOME: home,
    ANTHROPIC_BASE_URL: need("RELAX_BASE_URL").replace(/\/+$/, ""),
    ANTHROPIC_API_KEY: need("RELAX_SESSION_ID"),
    ANTHROPIC_MODEL: model,
    ANTHROPIC_SMALL_FAST_MODEL: model,
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    IS_SANDBOX: "1",
  },
});
process.stdout.write(result.stdout ?? "");
let answer = null;
try {
  answer = JSON.parse(result.stdout).result ?? null;
} catch {
  // Not JSON: Claude Code failed before answering; the exit code says so.
}
const exitCode = result.status ?? (result.signal ? 128 : 1);
writeFileSync(
  need("RELAX_OUTPUT_JSON"),
  JSON.stringify({
    kind: "implicit",
    metadata: { harness: "claude-code", exit_code: exitCode, answer, work_dir: workDir },
  }),
);
if (result.error) console.error(`claude-code: ${result.error.message}`);
process.exit(exitCode);
