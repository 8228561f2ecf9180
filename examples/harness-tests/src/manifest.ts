/** One real agent CLI the harness tests run (an entry of `harnesses.json`). */
export interface CliHarnessEntry {
  /** The harness id the gateway's classifier detects (`claude-code`, `codex`, `qwen-code`, `opencode`). */
  id: string;
  name: string;
  /** The recipe folder (repository-relative) whose `agent.mjs` wraps the CLI. */
  recipe: string;
  /** The npm package of the CLI; its pinned version is read from the recipe's package.json. */
  package: string;
  /** Which model API it speaks. */
  api: string;
  /** The tool the scripted policy makes it call to create the file. */
  tool: string;
  /** Sessions in the test Group. */
  sessions: number;
  /** Requests per session by request class, as the gateway must classify them. */
  requests: Record<string, number>;
  notes: string;
}

/** One SDK framework the harness tests drive through `sdk-agent.mjs` (each case a `SDK_CASE`). */
export interface SdkFrameworkEntry {
  id: string;
  name: string;
  /** npm packages (pinned in this package's package.json). */
  packages: string[];
  api: string;
  /** `SDK_CASE` values of `sdk-agent.mjs`: the framework's documented ways to run a tool loop. */
  cases: string[];
  notes?: string;
}

/**
 * One app that switches agent mid-session (`agentContexts` of `harnesses.json`, a `SDK_CASE` of
 * `sdk-agent.mjs`): a handoff to another agent, or a structured-output final request without tools. Its
 * session exports one training row per agent context; `test/agent-contexts.test.ts` runs it (not the generic
 * one-row loop of `test/sdk-frameworks.test.ts`).
 */
export interface AgentContextCaseEntry {
  /** The `SDK_CASE` value. */
  case: string;
  /** npm packages it uses (pinned in this package's package.json). */
  packages: string[];
  api: string;
  /** How the app switches agent. */
  switch: "handoff" | "structured-output";
  /** Agent contexts, hence training rows, per session. */
  contexts: number;
  notes: string;
}

/** `harnesses.json`. */
export interface HarnessManifest {
  clis: CliHarnessEntry[];
  sdks: SdkFrameworkEntry[];
  /** Apps that switch agent mid-session (not in the README's Supported harnesses table). */
  agentContexts?: AgentContextCaseEntry[];
}

/** The gateway's default policy per request class (`DEFAULT_CLASS_POLICIES` in apps/gateway). */
export const DEFAULT_POLICIES = {
  main: "train",
  subagent: "record",
  compaction: "record",
  title: "record",
  summary: "record",
  probe: "passthrough",
} as const;
