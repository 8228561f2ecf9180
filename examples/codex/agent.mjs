#!/usr/bin/env node
// Relax recipe for Codex CLI: maps the RELAX_* session contract onto a Codex model provider (Responses
// API) and runs `codex exec` once on the session's prompt. See README.md.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const env = process.env;
const need = (name) => {
  const value = env[name];
  if (value === undefined || value === "")
    throw new Error(`${name} is not set (run this under relax rollout)`);
  return value;
};
need("RELAX_SESSION_ID");
const ioDir = need("RELAX_SESSION_IO_DIR");
const input = JSON.parse(readFileSync(need("RELAX_INPUT_JSON"), "utf8"));
const text = (content) =>
  typeof content === "string"
    ? content
    : content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
const prompt = input.messages
  .filter((m) => m.role === "user" || m.role === "system")
  .map((m) => text(m.content))
  .join("\n\n");

// Working directory and CODEX_HOME under the session folder (Codex keeps sqlite state and sessions there).
const workDir = join(ioDir, "work");
const codexHome = join(ioDir, "codex-home");
mkdirSync(workDir, { recursive: true });
mkdirSync(codexHome, { recursive: true });
const lastMessage = join(ioDir, "codex-last-message.txt");

const bin =
  env.CODEX_BIN ??
  join(dirname(createRequire(import.meta.url).resolve("@openai/codex/package.json")), "bin/codex.js");
const baseUrl = `${need("RELAX_BASE_URL").replace(/\/+$/, "")}/v1`;
const model = env.HARNESS_MODEL ?? "relax-policy";
const provider = `{ name = "relax", base_url = ${JSON.stringify(baseUrl)}, env_key = "RELAX_SESSION_ID", wire_api = "responses", supports_websockets = false }`;
const args = [
  "exec",
  "--skip-git-repo-check",
  "--dangerously-bypass-approvals-and-sandbox",
  "--cd",
  workDir,
  "--model",
  model,
  "--output-last-message",
  lastMessage,
  "-c",
  "model_provider=relax",
  "-c",
  `model_providers.relax=${provider}`,
  "-c",
  "check_for_update_on_startup=false",
  "-c",
  "analytics.enabled=false",
  "-c",
  "feedback.enabled=false",
  "-c",
  "otel.exporter=none",
  // Extra `-c key=value` overrides, one per line (e.g. model_auto_compact_token_limit=20000).
  ...(env.CODEX_CONFIG ?? "")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => ["-c", line.trim()]),
  prompt,
];
const result = spawnSync(
  bin.endsWith(".js") ? process.execPath : bin,
  bin.endsWith(".js") ? [bin, ...args] : args,
  {
    cwd: workDir,
    stdio: ["ignore", "inherit", "inherit"],
    timeout: Number(env.HARNESS_TIMEOUT_MS ?? 600_000),
    env: {
      ...env,
      CODEX_HOME: codexHome,
      HOME: join(ioDir, "home"),
      NO_COLOR: "1",
      RUST_LOG: env.RUST_LOG ?? "error",
    },
  },
);
const exitCode = result.status ?? (result.signal ? 128 : 1);
const answer = existsSync(lastMessage) ? readFileSync(lastMessage, "utf8").trim() : null;
writeFileSync(
  need("RELAX_OUTPUT_JSON"),
  JSON.stringify({
    kind: "implicit",
    metadata: { harness: "codex", exit_code: exitCode, answer, work_dir: workDir },
  }),
);
if (result.error) console.error(`codex: ${result.error.message}`);
process.exit(exitCode);
