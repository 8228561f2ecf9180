#!/usr/bin/env node
// Relax recipe for Qwen Code: maps the RELAX_* session contract onto Qwen Code's OpenAI-compatible
// settings (or, with QWEN_CODE_AUTH_TYPE=anthropic, its Anthropic ones) and runs it once,
// non-interactively (positional one-shot prompt), on the session's prompt. See README.md.
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

// Working directory and HOME under the session folder: Qwen Code keeps ~/.qwen/ (settings, history).
const workDir = join(ioDir, "work");
const home = join(ioDir, "home");
mkdirSync(workDir, { recursive: true });
mkdirSync(join(home, ".qwen"), { recursive: true });
// Optional auto-compaction knobs of Qwen Code 0.24.x: the context window it assumes for the model
// (`model.generationConfig.contextWindowSize`) and the fraction of it at which it compacts
// (`context.autoCompactThreshold`, 0 < x <= 1).
const number = (name) => {
  const value = env[name];
  if (value === undefined || value === "") return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`${name} must be a positive number, got ${value}`);
  return parsed;
};
const contextWindowSize = number("QWEN_CODE_CONTEXT_WINDOW");
const autoCompactThreshold = number("QWEN_CODE_AUTO_COMPACT_THRESHOLD");
const authType = env.QWEN_CODE_AUTH_TYPE ?? "openai";
if (authType !== "openai" && authType !== "anthropic")
  throw new Error(`QWEN_CODE_AUTH_TYPE must be openai or anthropic, got ${authType}`);
writeFileSync(
  join(home, ".qwen", "settings.json"),
  JSON.stringify({
    telemetry: { enabled: false },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    ...(contextWindowSize !== undefined ? { model: { generationConfig: { contextWindowSize } } } : {}),
    ...(autoCompactThreshold !== undefined ? { context: { autoCompactThreshold } } : {}),
  }),
);

const bin =
  env.QWEN_CODE_BIN ??
  join(dirname(createRequire(import.meta.url).resolve("@qwen-code/qwen-code/package.json")), "cli-entry.js");
const model = env.HARNESS_MODEL ?? "relax-policy";
const args = [
  bin,
  "--auth-type",
  authType,
  "--approval-mode",
  "yolo",
  "--output-format",
  "json",
  "-m",
  model,
];
if (system !== "") args.push("--append-system-prompt", system);
const baseUrl = need("RELAX_BASE_URL").replace(/\/+$/, "");
args.push(prompt);
const result = spawnSync(process.execPath, args, {
  cwd: workDir,
  stdio: ["ignore", "pipe", "inherit"],
  encoding: "utf8",
  timeout: Number(env.HARNESS_TIMEOUT_MS ?? 600_000),
  env: {
    ...env,
    HOME: home,
    ...(authType === "anthropic"
      ? {
          // The Anthropic SDK appends /v1/messages itself.
          ANTHROPIC_BASE_URL: baseUrl,
          ANTHROPIC_API_KEY: need("RELAX_SESSION_ID"),
          ANTHROPIC_MODEL: model,
        }
      : { OPENAI_BASE_URL: `${baseUrl}/v1`, OPENAI_API_KEY: need("RELAX_SESSION_ID"), OPENAI_MODEL: model }),
    QWEN_CODE_DISABLE_TELEMETRY: "1",
    NO_COLOR: "1",
  },
});
process.stdout.write(result.stdout ?? "");
let answer = null;
try {
  const events = JSON.parse(result.stdout);
  const last = Array.isArray(events) ? events.findLast((event) => event.type === "result") : events;
  answer = last?.result ?? null;
} catch {
  // Not JSON: Qwen Code failed before answering; the exit code says so.
}
const exitCode = result.status ?? (result.signal ? 128 : 1);
writeFileSync(
  need("RELAX_OUTPUT_JSON"),
  JSON.stringify({
    kind: "implicit",
    metadata: { harness: "qwen-code", exit_code: exitCode, answer, work_dir: workDir },
  }),
);
if (result.error) console.error(`qwen-code: ${result.error.message}`);
process.exit(exitCode);
