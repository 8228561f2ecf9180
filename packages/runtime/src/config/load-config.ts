import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { createRequestClassifier } from "@relax/agent-api";
import { reasoningParserNames, toolCallParserNames } from "@relax/chat";
import { ConfigError } from "@relax/rollout";
import { parse as parseYaml } from "yaml";
import { applyRequestClassPolicyFlag } from "./request-class-policy-flag";
import { type RolloutConfig, rolloutConfigSchema } from "./rollout-config";

/** `agentic-concurrency` → `agenticConcurrency`. */
export function camelCaseKey(key: string): string {
  return key.replace(/^--/, "").replace(/[-_]([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Reads a YAML or JSON config file whose keys are the flag names (kebab-case, snake_case or camelCase).
 * @throws ConfigError when the file cannot be read or parsed.
 */
export async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError({ message: `--config ${path}: ${(error as Error).message}` });
  }
  let data: unknown;
  try {
    data = extname(path) === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError({ message: `--config ${path}: ${(error as Error).message}` });
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ConfigError({ message: `--config ${path}: must hold a mapping of option names to values` });
  }
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [camelCaseKey(key), value]));
}

/**
 * Validates the merged configuration (file values overridden by flags) with zod and checks the
 * combinations that cannot run, before any process starts.
 *
 * @throws ConfigError with every problem, each naming its flag (`--agentic-concurrency: …`).
 */
export function resolveConfig(
  fileValues: Record<string, unknown>,
  flagValues: Record<string, unknown>,
): RolloutConfig {
  const merged: Record<string, unknown> = { ...fileValues };
  for (const [key, value] of Object.entries(flagValues)) if (value !== undefined) merged[key] = value;
  if (merged.requestClasses !== undefined)
    merged.requestClasses = camelCaseRequestClasses(merged.requestClasses);
  try {
    applyRequestClassPolicyFlag(merged);
  } catch (error) {
    throw new ConfigError({ message: (error as Error).message, cause: error });
  }
  const result = rolloutConfigSchema.safeParse(merged);
  if (!result.success) {
    throw new ConfigError({
      message: result.error.issues
        .map((issue) => {
          const key = issue.path.length > 0 ? String(issue.path[0]) : "";
          const flag = key ? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : "config";
          if (issue.code === "unrecognized_keys") {
            return `config: unknown option(s) ${issue.keys.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(", ")}`;
          }
          return `${flag}: ${issue.message}`;
        })
        .join("\n"),
    });
  }
  const config = result.data;
  const problems: string[] = [];
  for (const entry of config.agentEnv) {
    const eq = entry.indexOf("=");
    if (eq <= 0) problems.push(`--agent-env: "${entry}" is not KEY=VALUE`);
    else if (entry.slice(0, eq).startsWith("RELAX_")) {
      problems.push(`--agent-env: ${entry.slice(0, eq)} uses the reserved RELAX_ prefix`);
    }
  }
  if (config.agenticMultiContext && !config.agenticCustomAdvantagePath) {
    problems.push(
      "--agentic-multi-context: exporting several contexts per session needs --agentic-custom-advantage-path",
    );
  }
  if (config.sglangUrl.length > 0 && config.enginePolicy) {
    problems.push("--engine-policy: only used by the built-in stand-in engine; drop it or drop --sglang-url");
  }
  if (config.sglangUrl.length === 0 && !config.enginePolicy) {
    problems.push(
      "--engine-policy: the built-in stand-in engine needs a policy module (or pass --sglang-url)",
    );
  }
  if (
    config.agenticToolCallParser !== undefined &&
    !toolCallParserNames.includes(config.agenticToolCallParser as never)
  ) {
    problems.push(
      `--agentic-tool-call-parser: unknown parser "${config.agenticToolCallParser}"; valid: ${toolCallParserNames.join(", ")}`,
    );
  }
  if (
    config.agenticReasoningParser !== undefined &&
    !reasoningParserNames.includes(config.agenticReasoningParser as never)
  ) {
    problems.push(
      `--agentic-reasoning-parser: unknown parser "${config.agenticReasoningParser}"; valid: ${reasoningParserNames.join(", ")}`,
    );
  }
  if (!existsSync(config.promptData)) problems.push(`--prompt-data: no such file: ${config.promptData}`);
  for (const dataset of config.evalPromptData ?? []) {
    if (!existsSync(dataset.path)) {
      problems.push(`--eval-prompt-data: dataset "${dataset.name}": no such file: ${dataset.path}`);
    }
  }
  if (config.evalInterval !== undefined && config.evalPromptData === undefined) {
    problems.push("--eval-interval: there is no eval dataset to run; add --eval-prompt-data");
  }
  if (
    config.agentCwd !== undefined &&
    !(existsSync(config.agentCwd) && statSync(config.agentCwd).isDirectory())
  ) {
    problems.push(`--agent-cwd: not a directory: ${config.agentCwd}`);
  }
  if (config.rolloutMaxResponseLen >= config.rolloutMaxContextLen) {
    problems.push("--rollout-max-response-len: must be smaller than --rollout-max-context-len");
  }
  try {
    createRequestClassifier(config.requestClasses);
  } catch (error) {
    problems.push(`--config: ${(error as Error).message}`);
  }
  if (problems.length > 0) throw new ConfigError({ message: problems.join("\n") });
  return config;
}

/** `request-classes` keys in any case (`last-user`, `builtin_rules`) → camelCase; header names are kept. */
function camelCaseRequestClasses(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const section = Object.fromEntries(Object.entries(value).map(([k, v]) => [camelCaseKey(k), v]));
  if (Array.isArray(section.rules)) {
    section.rules = section.rules.map((rule: unknown) =>
      typeof rule === "object" && rule !== null && !Array.isArray(rule)
        ? Object.fromEntries(Object.entries(rule).map(([k, v]) => [camelCaseKey(k), v]))
        : rule,
    );
  }
  return section;
}
