#!/usr/bin/env node
// Relax recipe for opencode: maps the RELAX_* session contract onto an OpenAI-compatible opencode
// provider and runs `opencode run` once on the session's prompt. See README.md.
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

// Working directory, HOME and XDG folders under the session folder (opencode keeps its database there).
const workDir = join(ioDir, "work");
const home = join(ioDir, "home");
mkdirSync(workDir, { recursive: true });
for (const dir of [".config", ".local/share", ".cache", ".local/state"])
  mkdirSync(join(home, dir), { recursive: true });

const model = env.HARNESS_MODEL ?? "relax-policy";
const config = {
  $schema: "https://opencode.ai/config.json",
  autoupdate: false,
  share: "disabled",
  model: `relax/${model}`,
  small_model: `relax/${model}`,
  permission: { edit: "allow", bash: "allow", webfetch: "deny" },
  provider: {
    relax: {
      npm: "@ai-sdk/openai-compatible",
      name: "Relax",
      options: {
        baseURL: `${need("RELAX_BASE_URL").replace(/\/+$/, "")}/v1`,
        apiKey: "{env:RELAX_SESSION_ID}",
      },
      models: { [model]: { name: model, tool_call: true, limit: { context: 32768, output: 4096 } } },
    },
  },
};

const bin =
  env.OPENCODE_BIN ??
  join(dirname(createRequire(import.meta.url).resolve("opencode-ai/package.json")), "bin/opencode.exe");
const result = spawnSync(
  bin,
  ["run", "--format", "json", "--dir", workDir, "--model", `relax/${model}`, prompt],
  {
    cwd: workDir,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    timeout: Number(env.HARNESS_TIMEOUT_MS ?? 600_000),
    env: {
      ...env,
      HOME: home,
      PWD: workDir,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local/share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local/state"),
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_SHARE: "1",
      NO_COLOR: "1",
    },
  },
);
process.stdout.write(result.stdout ?? "");
let answer = null;
for (const line of (result.stdout ?? "").split("\n")) {
  try {
    const event = JSON.parse(line);
    if (event.type === "text" && typeof event.part?.text === "string") answer = event.part.text;
  } catch {
    // not an event line
  }
}
const exitCode = result.status ?? (result.signal ? 128 : 1);
writeFileSync(
  need("RELAX_OUTPUT_JSON"),
  JSON.stringify({
    kind: "implicit",
    metadata: { harness: "opencode", exit_code: exitCode, answer, work_dir: workDir },
  }),
);
if (result.error) console.error(`opencode: ${result.error.message}`);
process.exit(exitCode);
