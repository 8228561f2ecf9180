import { readAnswerSchema } from "@relax/standin";
import {
  formatQwen3Assistant,
  lastUserQueryIndex,
  parseQwen3Prompt,
  type Qwen3Prompt,
  type Qwen3ToolCall,
  type StandinPolicyRequest,
  systemText,
  toolResponsesAfter,
} from "@relax-examples/kit";

/** The file every harness test asks the agent to create, and its content. */
export const TARGET_FILE = "hello.txt";
export const TARGET_CONTENT = "hello from relax";

/** The one-line summary the policy writes for a side request without tools (a compaction, a compression). */
export const SIDE_SUMMARY = `Summary: the user asked for ${TARGET_FILE}; it was created.`;

/**
 * The sentence a test adds to the user prompt to make the policy delegate the file to a sub-agent: the main
 * request then answers with the harness's sub-agent tool call (Claude Code's `Agent`, formerly `Task`).
 */
export const SUBAGENT_MARKER = "Delegate the file to a sub-agent.";

/** The prompt the policy gives the sub-agent (no {@link SUBAGENT_MARKER} in it: the sub-agent writes the file). */
export const SUBAGENT_PROMPT = `Create a file named ${TARGET_FILE} in the current directory containing exactly "${TARGET_CONTENT}", then say that you are done.`;

/** What the scripted policy decided for one request (for tests and logs). */
export type CreateFilePolicyStep =
  | "tool_call"
  | "subagent_call"
  | "handoff_call"
  | "answer"
  | "structured"
  | "title"
  | "side";

/** The answer the policy gives once the file is written. */
export const FINAL_ANSWER = `Created ${TARGET_FILE}.`;

/** Whether a tool is an agent handoff (`@openai/agents` names it `transfer_to_<agent>`). */
export const isHandoffTool = (name: string): boolean => name.startsWith("transfer_to_");

/** The tool names of the `<tools>` section of a rendered Qwen3 prompt, in order. */
export function promptToolNames(system: string): string[] {
  const section = /<tools>\n([\s\S]*?)\n<\/tools>/.exec(system)?.[1];
  if (section === undefined) return [];
  const names: string[] = [];
  for (const line of section.split("\n")) {
    try {
      const tool = JSON.parse(line) as { function?: { name?: unknown }; name?: unknown };
      const name = tool.function?.name ?? tool.name;
      if (typeof name === "string") names.push(name);
    } catch {
      // A tool description spanning lines: not a tool line.
    }
  }
  return names;
}

const CWD_PATTERNS = [
  /<cwd>([^<\n]+)<\/cwd>/,
  /[Ww]orking directory:\s*(\/[^\s<]+)/,
  /working (?:in|on) the (?:following )?directory:?\s*`?(\/[^\s`<]+)/i,
  /\bcwd:\s*(\/[^\s<]+)/,
];

/** The agent's working directory as its harness wrote it into the prompt, if any. */
export function promptWorkingDirectory(promptText: string): string | undefined {
  for (const pattern of CWD_PATTERNS) {
    const match = pattern.exec(promptText);
    if (match?.[1] !== undefined) return match[1].replace(/[.,;:]$/, "");
  }
  return undefined;
}

/**
 * The tool call that makes a harness create {@link TARGET_FILE} with its own tool: a write tool when it
 * has one (Claude Code `Write`, Qwen Code `write_file`, opencode `write`), else its shell tool (Codex
 * `exec_command` / `shell`). `undefined` when the prompt declares none of them.
 */
export function createFileCall(tools: readonly string[], cwd: string | undefined): Qwen3ToolCall | undefined {
  const path = cwd === undefined ? TARGET_FILE : `${cwd.replace(/\/$/, "")}/${TARGET_FILE}`;
  const shell = `printf '%s' '${TARGET_CONTENT}' > ${TARGET_FILE}`;
  if (tools.includes("Write"))
    return { name: "Write", arguments: { file_path: path, content: TARGET_CONTENT } };
  if (tools.includes("write_file"))
    return { name: "write_file", arguments: { file_path: path, content: TARGET_CONTENT } };
  if (tools.includes("write"))
    return { name: "write", arguments: { filePath: path, content: TARGET_CONTENT } };
  if (tools.includes("exec_command"))
    return {
      name: "exec_command",
      arguments: { cmd: shell, ...(cwd !== undefined ? { workdir: cwd } : {}) },
    };
  if (tools.includes("shell"))
    return {
      name: "shell",
      arguments: { command: ["bash", "-lc", shell], ...(cwd !== undefined ? { workdir: cwd } : {}) },
    };
  if (tools.includes("run_shell_command"))
    return { name: "run_shell_command", arguments: { command: shell } };
  if (tools.includes("bash") || tools.includes("Bash"))
    return {
      name: tools.includes("bash") ? "bash" : "Bash",
      arguments: { command: shell, description: "write" },
    };
  return undefined;
}

/** The names of the tool calls in the assistant turns after turn `afterIndex`, in order. */
export function toolCallNamesAfter(prompt: Qwen3Prompt, afterIndex: number): string[] {
  const names: string[] = [];
  for (const turn of prompt.turns.slice(afterIndex + 1)) {
    if (turn.role !== "assistant") continue;
    for (const match of turn.content.matchAll(/<tool_call>\n([\s\S]*?)\n<\/tool_call>/g)) {
      try {
        const name = (JSON.parse(match[1] ?? "") as { name?: unknown }).name;
        if (typeof name === "string") names.push(name);
      } catch {
        // Not a JSON tool call: not counted.
      }
    }
  }
  return names;
}

/**
 * The call that starts a sub-agent to create the file: Claude Code's `Agent` tool (named `Task` before
 * 2.1), a general-purpose agent in the foreground (`run_in_background: false`, so that the main loop waits
 * for its result). `undefined` when the prompt declares neither tool.
 */
export function subagentCall(tools: readonly string[]): Qwen3ToolCall | undefined {
  const name = ["Agent", "Task"].find((tool) => tools.includes(tool));
  if (name === undefined) return undefined;
  return {
    name,
    arguments: {
      description: `Create ${TARGET_FILE}`,
      prompt: SUBAGENT_PROMPT,
      subagent_type: "general-purpose",
      ...(name === "Agent" ? { run_in_background: false } : {}),
    },
  };
}

/**
 * Decides one step of the "create a file, then answer" script from a rendered Qwen3 prompt:
 * - a request without tools and with a structured-output schema (`jsonSchema`, the request's answer schema:
 *   SGLang's `json_schema` sampling parameter, see {@link createFilePolicy}) that follows a tool result, or whose last user message or system prompt
 *   asks for JSON, is a structured final answer: {@link jsonAnswer} of {@link FINAL_ANSWER} (e.g. LangChain's
 *   `withStructuredOutput`, LangGraph's `responseFormat` after the tool loop);
 * - any other request without tools is a side request: {@link SIDE_SUMMARY} when its last user message asks for a
 *   summary or compaction, else a title as JSON `{"title": …}` when its prompt mentions a title, else
 *   {@link SIDE_SUMMARY};
 * - with tools, when the last user query carries {@link SIDE_SUMMARY} (a harness restarting from its
 *   compaction summary, e.g. Codex's "Another language model started to solve this problem…"): the final
 *   answer, the file being already written;
 * - with tools and no tool result since the last user query (results of handoff calls, `transfer_to_*`, do
 *   not count: the agent handed to has not worked yet): the sub-agent tool call when that query carries
 *   {@link SUBAGENT_MARKER} and the harness has a sub-agent tool ({@link subagentCall}), else the
 *   create-file tool call, else — with no tool to write files but a handoff tool — the handoff call;
 * - after a tool result: the final answer.
 */
export function decideCreateFileStep(
  promptText: string,
  jsonSchema?: string,
): { step: CreateFilePolicyStep; text: string } {
  const prompt = parseQwen3Prompt(promptText);
  const system = systemText(prompt);
  const tools = promptToolNames(system);
  const query = lastUserQueryIndex(prompt);
  const results = toolResponsesAfter(prompt, query);
  if (tools.length === 0) {
    if (jsonSchema !== undefined) {
      const asksForJson = /\bjson\b/i.test(`${system}\n${prompt.turns[query]?.content ?? ""}`);
      if (results.length > 0 || asksForJson)
        return { step: "structured", text: jsonAnswer(jsonSchema, FINAL_ANSWER) };
    }
    // A summary request says so in its last user message (Codex's compaction prompt: "…CONTEXT CHECKPOINT
    // COMPACTION. Create a handoff summary…"); the history before it may well mention titles.
    const lastUser = prompt.turns[query]?.content ?? "";
    if (/summar|compaction|checkpoint/i.test(lastUser)) return { step: "side", text: SIDE_SUMMARY };
    if (/\btitle\b/i.test(promptText)) return { step: "title", text: '{"title": "Create a hello file"}' };
    return { step: "side", text: SIDE_SUMMARY };
  }
  const restartedFromSummary = prompt.turns[query]?.content.includes(SIDE_SUMMARY) === true;
  // A handoff's result (`{"assistant": "file agent"}`) is not work done: the agent handed to starts now.
  const calls = toolCallNamesAfter(prompt, query);
  const onlyHandedOff = calls.length > 0 && calls.every(isHandoffTool);
  if (restartedFromSummary || (results.length > 0 && !onlyHandedOff)) {
    return {
      step: "answer",
      text: jsonSchema === undefined ? FINAL_ANSWER : jsonAnswer(jsonSchema, FINAL_ANSWER),
    };
  }
  if (prompt.turns[query]?.content.includes(SUBAGENT_MARKER) === true) {
    const delegate = subagentCall(tools);
    if (delegate !== undefined)
      return { step: "subagent_call", text: formatQwen3Assistant({ content: "", toolCalls: [delegate] }) };
  }
  const call = createFileCall(tools, promptWorkingDirectory(promptText));
  if (call === undefined) {
    const handoff = tools.find(isHandoffTool);
    if (handoff !== undefined)
      return {
        step: "handoff_call",
        text: formatQwen3Assistant({ content: "", toolCalls: [{ name: handoff, arguments: {} }] }),
      };
    return { step: "answer", text: "I have no tool to write files." };
  }
  return { step: "tool_call", text: formatQwen3Assistant({ content: "", toolCalls: [call] }) };
}

/**
 * The answer as a JSON object for a structured-output request (SGLang's `json_schema` sampling parameter,
 * sent by default): every string property of the schema holds the answer.
 */
export function jsonAnswer(jsonSchema: string, answer: string): string {
  const schema = JSON.parse(jsonSchema) as { properties?: Record<string, { type?: unknown }> };
  const value: Record<string, string> = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property.type === "string") value[key] = answer;
  }
  return JSON.stringify(value);
}

/**
 * The stand-in policy of the harness tests: a script, not a model. It makes any supported harness create
 * {@link TARGET_FILE} with its own tool, then answer (see {@link decideCreateFileStep}). The answer's schema,
 * if any, is read from the request's sampling parameters ({@link readAnswerSchema}: `json_schema`, or the
 * answer branch of a `structural_tag` that also allows tool calls), so the policy adapts to whatever
 * response format the app asked for.
 */
export function createFilePolicy(request: Pick<StandinPolicyRequest, "promptText" | "sampling">): string {
  return decideCreateFileStep(
    request.promptText,
    readAnswerSchema(request.sampling as Parameters<typeof readAnswerSchema>[0]),
  ).text;
}

export default createFilePolicy;
