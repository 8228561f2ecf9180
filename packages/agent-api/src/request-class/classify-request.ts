import type { CanonicalRequest, ChatMessage } from "@relax/chat";
import { z } from "zod";

/**
 * What a model request is for (the design article's "request scene classification"):
 * - `main`: the agent's own loop — the trajectory that is trained;
 * - `subagent`: a helper agent's loop (Codex `x-openai-subagent`; Claude Code's `Task`/`Agent` tool
 *   sub-agents, marked by `x-claude-code-agent-id` or their "You are an agent for Claude Code" prompt);
 * - `compaction`: a request that summarises the history so that the loop can restart from the summary
 *   (Codex "CONTEXT CHECKPOINT COMPACTION", `/responses/compact`, Qwen Code chat compression);
 * - `title`: a session title (Claude Code, opencode);
 * - `summary`: any other side summary (Codex memory generation, a tool-less one-turn request with its own
 *   system prompt after the main loop began);
 * - `probe`: a request whose answer the client ignores (token counting, a `max_tokens: 1` quota check).
 */
export const REQUEST_CLASSES = ["main", "subagent", "compaction", "title", "summary", "probe"] as const;
export type RequestClass = (typeof REQUEST_CLASSES)[number];

/**
 * What the gateway does with a class:
 * - `train`: for `main`, the request goes into the session's forest and is exported (the default); for
 *   any other class, it is kept in the class's side forest of the session and every leaf of that forest
 *   is exported as a side context of the same Group, credited from the session's main context or by a
 *   side-credit function (docs/contract.md#side-contexts);
 * - `record`: generated and kept in a per-class side forest of the session, written to the debug dump,
 *   never exported;
 * - `passthrough`: generated from the rendered prompt and answered; nothing is recorded.
 */
export const REQUEST_CLASS_POLICIES = ["train", "record", "passthrough"] as const;
export type RequestClassPolicy = (typeof REQUEST_CLASS_POLICIES)[number];

/** The harnesses with built-in rules; `unknown` when no harness signature matched. */
export type KnownHarness = "claude-code" | "codex" | "qwen-code" | "opencode" | "unknown";

/**
 * Parses `--request-class-policy CLASS=POLICY` entries (repeatable) into a policy map; later entries win.
 * @throws TypeError naming the entry for an unknown class or policy, or an entry that is not `CLASS=POLICY`.
 */
export function parseRequestClassPolicies(
  entries: readonly string[],
): Partial<Record<RequestClass, RequestClassPolicy>> {
  const out: Partial<Record<RequestClass, RequestClassPolicy>> = {};
  for (const entry of entries) {
    const [name, policy, ...rest] = entry.split("=");
    if (policy === undefined || rest.length > 0) {
      throw new TypeError(`"${entry}" is not CLASS=POLICY (e.g. compaction=train)`);
    }
    if (!(REQUEST_CLASSES as readonly string[]).includes(name!)) {
      throw new TypeError(`"${entry}": unknown class "${name}"; valid: ${REQUEST_CLASSES.join(", ")}`);
    }
    if (!(REQUEST_CLASS_POLICIES as readonly string[]).includes(policy)) {
      throw new TypeError(
        `"${entry}": unknown policy "${policy}"; valid: ${REQUEST_CLASS_POLICIES.join(", ")}`,
      );
    }
    if (name === "main" && policy !== "train") {
      throw new TypeError(`"${entry}": the main loop is always trained`);
    }
    out[name as RequestClass] = policy as RequestClassPolicy;
  }
  return out;
}

/** Default policy of every class: only the main loop trains. */
export const DEFAULT_CLASS_POLICIES: Readonly<Record<RequestClass, RequestClassPolicy>> = {
  main: "train",
  subagent: "record",
  compaction: "record",
  title: "record",
  summary: "record",
  probe: "passthrough",
};

/** One model request as the classifier sees it. Header names lower-case. */
export interface ClassifiableRequest {
  /** URL path of the request (`/agentic_api/v1/messages`); query strings are ignored. */
  path: string;
  headers: Readonly<Record<string, string>>;
  request: Pick<CanonicalRequest, "messages" | "tools" | "model" | "maxTokens" | "stream">;
}

/** What the session has seen so far, for the content-feature rule. */
export interface ClassifierSessionView {
  /** System prompt of the session's first `main` request that declared tools, if any. */
  mainSystemPrompt?: string;
}

/** The class of a request and why. */
export interface RequestClassification {
  requestClass: RequestClass;
  harness: KnownHarness;
  /** The rule that decided: `user:<index>`, `builtin:<name>`, or `default`. */
  rule: string;
}

/**
 * A user rule from the config file (`request-classes.rules`). Every given condition must hold; regular
 * expressions are JavaScript syntax, unanchored, case-sensitive. The first matching user rule wins over
 * every built-in rule.
 */
export const requestClassRuleSchema = z
  .object({
    /** The class a matching request gets. */
    class: z.enum(REQUEST_CLASSES),
    /** Only for requests from this harness (as detected by the built-in signatures). */
    harness: z.enum(["claude-code", "codex", "qwen-code", "opencode", "unknown"]).optional(),
    /** Regex on the URL path. */
    path: z.string().optional(),
    /** Header name (any case) → regex on its value; `""` only asks the header to be present. */
    headers: z.record(z.string(), z.string()).optional(),
    /** Regex on the `model` field. */
    model: z.string().optional(),
    /** Regex on the leading system/developer text. */
    system: z.string().optional(),
    /** Regex on the text of the last user message. */
    lastUser: z.string().optional(),
    /** `true`: the request declares no tools; `false`: it declares some. */
    noTools: z.boolean().optional(),
    /** `true`: no assistant message in the history (a one-turn request). */
    oneTurn: z.boolean().optional(),
  })
  .strict();
export type RequestClassRule = z.infer<typeof requestClassRuleSchema>;

/** The `request-classes` section of the config file. */
export const requestClassConfigSchema = z
  .object({
    /** Policy per class, over {@link DEFAULT_CLASS_POLICIES}. */
    policies: z.partialRecord(z.enum(REQUEST_CLASSES), z.enum(REQUEST_CLASS_POLICIES)).default({}),
    /** User rules, tried in order before the built-in ones. */
    rules: z.array(requestClassRuleSchema).default([]),
    /** Whether the built-in per-harness rules apply. @default true */
    builtinRules: z.boolean().default(true),
  })
  .strict();
export type RequestClassConfig = z.infer<typeof requestClassConfigSchema>;
export type RequestClassConfigInput = z.input<typeof requestClassConfigSchema>;

/** The compiled classifier of a run; see {@link createRequestClassifier}. */
export interface RequestClassifier {
  classify(request: ClassifiableRequest, session?: ClassifierSessionView): RequestClassification;
  policyOf(requestClass: RequestClass): RequestClassPolicy;
}

interface Features {
  path: string;
  headers: Readonly<Record<string, string>>;
  model: string;
  system: string;
  lastUser: string;
  firstUser: string;
  noTools: boolean;
  oneTurn: boolean;
  maxTokens: number | undefined;
}

/** Text of a message's content (text parts joined with `\n`). */
function textOf(message: ChatMessage | undefined): string {
  if (message === undefined) return "";
  const { content } = message;
  if (typeof content === "string") return content;
  return content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

function featuresOf({ path, headers, request }: ClassifiableRequest): Features {
  const messages = request.messages;
  const system: string[] = [];
  for (const message of messages) {
    if (message.role !== "system") break;
    system.push(textOf(message));
  }
  const users = messages.filter((message) => message.role === "user");
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  return {
    path: path.split("?")[0]!,
    headers: lower,
    model: request.model ?? "",
    system: system.join("\n"),
    lastUser: textOf(users.at(-1)),
    firstUser: textOf(users[0]),
    noTools: request.tools.length === 0,
    oneTurn: !messages.some((message) => message.role === "assistant"),
    maxTokens: request.maxTokens,
  };
}

/** What {@link detectHarness} reads of a request. */
export interface HarnessEvidence {
  /** Request headers, names lower-case. */
  headers: Readonly<Record<string, string>>;
  /** Text of the request's first user message. */
  firstUser: string;
  /** The leading system/developer text. @default "" */
  system?: string;
  /** Text of the request's last user message. @default "" */
  lastUser?: string;
}

/**
 * Which harness sent a request, by the strongest evidence; `unknown` when nothing matches. Evidence ranks:
 * 1. a header only that harness sends: `x-claude-code-session-id` or an `anthropic-beta` `claude-code-<date>`
 *    flag (Claude Code), `originator: codex…`, `x-openai-subagent`, `x-openai-memgen-request` (Codex);
 * 2. the request's content, fixed prompt texts of one harness: Qwen Code's opening user context ("This is
 *    the Qwen Code. We are setting up the context…", possibly inside a `<system-reminder>`), its system
 *    prompt "You are Qwen Code", its compression prompt and directive ("…produce the <state_snapshot> XML");
 *    Claude Code's `x-anthropic-billing-header: cc_version=` system line; opencode's title prompt;
 * 3. the user agent: `claude-cli/<major ≥ 1>` (Claude Code; Qwen Code 0.x with `--auth-type anthropic`
 *    borrows `claude-cli/<its own 0.x version> (external, cli)` and is told apart by rank 2), `codex…`,
 *    `qwen-code` / `QwenCode/`, `opencode`, and opencode's `x-session-affinity` header.
 *
 * Signatures follow the requests observed from Claude Code 2.1.x, Codex CLI 0.17x, Qwen Code 0.15–0.24 and
 * opencode 1.18 (examples/harness-tests, and Qwen Code 0.24.4's bundled prompts).
 */
export function detectHarness(evidence: HarnessEvidence): KnownHarness {
  return (
    harnessByHeader(evidence.headers) ?? harnessByContent(evidence) ?? harnessByUserAgent(evidence.headers)
  );
}

function harnessByHeader(headers: Readonly<Record<string, string>>): KnownHarness | undefined {
  if (
    headers["x-claude-code-session-id"] !== undefined ||
    /\bclaude-code-\d/.test(headers["anthropic-beta"] ?? "")
  )
    return "claude-code";
  if (
    (headers.originator ?? "").startsWith("codex") ||
    headers["x-openai-subagent"] !== undefined ||
    headers["x-openai-memgen-request"] !== undefined
  )
    return "codex";
  return undefined;
}

/** Qwen Code's fixed texts (0.15 and 0.24.4 prompts). */
const QWEN_CODE_OPENING = "This is the Qwen Code. We are setting up the context for our chat.";
const QWEN_CODE_SNAPSHOT_DIRECTIVE = /\b(produce|generate) the <state_snapshot>/;
const QWEN_CODE_COMPRESSION_SYSTEM =
  /^\s*You are the component that summarizes (internal chat history|a conversation)/;

function harnessByContent(evidence: HarnessEvidence): KnownHarness | undefined {
  const system = evidence.system ?? "";
  if (
    evidence.firstUser.includes(QWEN_CODE_OPENING) ||
    /^\s*You are Qwen Code\b/.test(system) ||
    QWEN_CODE_COMPRESSION_SYSTEM.test(system) ||
    QWEN_CODE_SNAPSHOT_DIRECTIVE.test(evidence.lastUser ?? "")
  )
    return "qwen-code";
  if (system.startsWith("x-anthropic-billing-header: cc_version=")) return "claude-code";
  if (system.includes("You are a title generator")) return "opencode";
  return undefined;
}

function harnessByUserAgent(headers: Readonly<Record<string, string>>): KnownHarness {
  const userAgent = headers["user-agent"] ?? "";
  const claudeCli = /^claude-cli\/(\d+)\./.exec(userAgent);
  if (claudeCli !== null && Number(claudeCli[1]) >= 1) return "claude-code";
  if (/^codex[_ -]/i.test(userAgent)) return "codex";
  if (/qwen-?code/i.test(userAgent)) return "qwen-code";
  if (/opencode/i.test(userAgent) || headers["x-session-affinity"] !== undefined) return "opencode";
  return "unknown";
}

interface BuiltinRule {
  name: string;
  requestClass: RequestClass;
  harness?: KnownHarness;
  test: (features: Features) => boolean;
}

/**
 * Built-in rules, first match wins. The content features are fixed prompt texts of each harness; a
 * harness that changes its prompt falls through to the generic rules or to `main`.
 */
const BUILTIN_RULES: readonly BuiltinRule[] = [
  { name: "count-tokens-path", requestClass: "probe", test: (f) => f.path.endsWith("/count_tokens") },
  { name: "compact-path", requestClass: "compaction", test: (f) => f.path.endsWith("/responses/compact") },
  {
    name: "codex-subagent-header",
    requestClass: "subagent",
    test: (f) => f.headers["x-openai-subagent"] !== undefined,
  },
  {
    // Claude Code 2.1.x sends its sub-agent's id with every request of a `Task`/`Agent` tool sub-agent
    // (`x-claude-code-parent-agent-id` too when nested); the main thread sends neither.
    name: "claude-code-subagent-header",
    requestClass: "subagent",
    harness: "claude-code",
    test: (f) => f.headers["x-claude-code-agent-id"] !== undefined,
  },
  {
    // Without the header (older builds, a proxy that drops it): the built-in general-purpose sub-agent's
    // system prompt, which the main loop never uses.
    name: "claude-code-subagent-prompt",
    requestClass: "subagent",
    harness: "claude-code",
    test: (f) =>
      !f.noTools && f.system.includes("You are an agent for Claude Code, Anthropic's official CLI"),
  },
  {
    name: "codex-memgen-header",
    requestClass: "summary",
    test: (f) => f.headers["x-openai-memgen-request"] !== undefined,
  },
  {
    name: "codex-compaction-prompt",
    requestClass: "compaction",
    harness: "codex",
    test: (f) => f.noTools && f.lastUser.includes("CONTEXT CHECKPOINT COMPACTION"),
  },
  {
    name: "claude-code-quota-probe",
    requestClass: "probe",
    harness: "claude-code",
    test: (f) => f.maxTokens === 1 && f.noTools,
  },
  {
    name: "claude-code-title-prompt",
    requestClass: "title",
    harness: "claude-code",
    test: (f) => f.noTools && /\btitle\b/i.test(f.system) && f.system.includes("Generate a concise"),
  },
  {
    name: "claude-code-compact-prompt",
    requestClass: "compaction",
    harness: "claude-code",
    test: (f) => f.noTools && f.lastUser.includes("create a detailed summary of the conversation"),
  },
  {
    name: "qwen-code-compression-prompt",
    requestClass: "compaction",
    harness: "qwen-code",
    // The dedicated summariser (no tools, its own system prompt), or Qwen Code 0.24's cache-sharing variant:
    // the main system prompt and tools kept, the compression prompt and directive as the last user message.
    test: (f) =>
      QWEN_CODE_SNAPSHOT_DIRECTIVE.test(f.lastUser) ||
      (f.noTools && QWEN_CODE_COMPRESSION_SYSTEM.test(f.system)),
  },
  {
    name: "opencode-title-prompt",
    requestClass: "title",
    harness: "opencode",
    test: (f) => f.noTools && f.system.includes("You are a title generator"),
  },
  {
    name: "opencode-summary-prompt",
    requestClass: "summary",
    harness: "opencode",
    test: (f) => f.noTools && /\bsummar(y|ize)\b/i.test(f.system) && f.oneTurn,
  },
];

function compile(pattern: string, where: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new TypeError(`${where}: invalid regular expression: ${(error as Error).message}`);
  }
}

/**
 * Compiles the classifier of a run from the config file's `request-classes` section.
 *
 * Order: user rules (first match) → built-in rules (per detected harness, first match) → for a known
 * harness, the content feature "tool-less one-turn request whose system prompt differs from the session's
 * main-loop system prompt" → `summary` → otherwise `main`. Requests of an unknown agent app are `main`
 * unless a path/header rule or a user rule says otherwise (its helper calls may be contexts it exports).
 *
 * @throws TypeError naming `request-classes.rules[i].<field>` for an invalid regular expression.
 */
export function createRequestClassifier(config: RequestClassConfigInput = {}): RequestClassifier {
  const parsed = requestClassConfigSchema.parse(config);
  const policies = { ...DEFAULT_CLASS_POLICIES, ...parsed.policies };
  const userRules = parsed.rules.map((rule, index) => {
    const at = (field: string) => `request-classes.rules[${index}].${field}`;
    const path = rule.path !== undefined ? compile(rule.path, at("path")) : undefined;
    const model = rule.model !== undefined ? compile(rule.model, at("model")) : undefined;
    const system = rule.system !== undefined ? compile(rule.system, at("system")) : undefined;
    const lastUser = rule.lastUser !== undefined ? compile(rule.lastUser, at("lastUser")) : undefined;
    const headers = Object.entries(rule.headers ?? {}).map(
      ([name, pattern]) => [name.toLowerCase(), compile(pattern, at(`headers.${name}`))] as const,
    );
    return (features: Features, harness: KnownHarness): boolean =>
      (rule.harness === undefined || rule.harness === harness) &&
      (path === undefined || path.test(features.path)) &&
      (model === undefined || model.test(features.model)) &&
      (system === undefined || system.test(features.system)) &&
      (lastUser === undefined || lastUser.test(features.lastUser)) &&
      (rule.noTools === undefined || rule.noTools === features.noTools) &&
      (rule.oneTurn === undefined || rule.oneTurn === features.oneTurn) &&
      headers.every(([name, pattern]) => {
        const value = features.headers[name];
        return value !== undefined && pattern.test(value);
      });
  });

  return {
    policyOf: (requestClass) => policies[requestClass],
    classify(request, session = {}) {
      const features = featuresOf(request);
      const harness = detectHarness(features);
      for (const [index, matches] of userRules.entries()) {
        if (matches(features, harness)) {
          return { requestClass: parsed.rules[index]!.class, harness, rule: `user:${index}` };
        }
      }
      if (parsed.builtinRules) {
        for (const rule of BUILTIN_RULES) {
          if (rule.harness !== undefined && rule.harness !== harness) continue;
          if (rule.test(features))
            return { requestClass: rule.requestClass, harness, rule: `builtin:${rule.name}` };
        }
        // Only for a known harness: an unknown agent app's own helper calls (a searcher sub-agent, a
        // judge) may be contexts it exports explicitly, so they stay in the trained forest.
        if (
          harness !== "unknown" &&
          session.mainSystemPrompt !== undefined &&
          features.noTools &&
          features.oneTurn &&
          features.system !== "" &&
          features.system !== session.mainSystemPrompt
        ) {
          return { requestClass: "summary", harness, rule: "builtin:toolless-one-turn-own-system" };
        }
      }
      return { requestClass: "main", harness, rule: "default" };
    },
  };
}

/** The leading system text of a request, as the classifier compares it (for {@link ClassifierSessionView}). */
export function leadingSystemText(messages: readonly ChatMessage[]): string {
  const out: string[] = [];
  for (const message of messages) {
    if (message.role !== "system") break;
    out.push(textOf(message));
  }
  return out.join("\n");
}
