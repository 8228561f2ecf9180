import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { formatTrainingRowsJsonl, type TrainingRow } from "@relax/export";
import { describe, expect, it } from "vitest";
import { buildViewModel, parseViewSource, renderPage, ViewInputError } from "../src/index";
import type { ViewDumpSession } from "../src/internal/index";
import { buildForestView } from "../src/model/build-forest-view";
import { describeAdvantageSource, describeRewardSource } from "../src/model/describe-sources";
import { diffHistories } from "../src/model/history-diff";
import { fixture, source } from "./helpers";
import { IMAGE_PAD, imageRow, RED_PNG } from "./image-row";
import { SCREEN, visionDump } from "./vision-dump";

const hash = (c: string) => c.repeat(64);

describe("buildViewModel from the drift fixture (a real run with tolerated drift)", () => {
  const model = buildViewModel({
    sources: [source("drift-debug-0.json")],
    decodeToken: (id) => `<${id}>`,
  });

  it("should list the step, its Group and both sessions with rewards and advantages", () => {
    expect(
      model.steps.map((step) => [step.id, step.kind, step.mode, step.groups.length, step.weightVersions]),
    ).toEqual([["0", "dump", "train", 1, ["default"]]]);
    const [group] = model.steps[0]!.groups;
    expect(group).toMatchObject({ index: 0, outcome: "exported", rewardMean: 0.5 });
    expect(
      model.sessions.map((s) => [s.slot, s.reward, s.turnCount, s.transitions, s.contextIds.length]),
    ).toEqual([
      [0, 1, 3, { append: 1, drift: 2 }, 1],
      [1, 0, 3, { append: 1, drift: 2 }, 1],
    ]);
    // GRPO over rewards [1, 0]: ±0.5 / (std 0.7071… + 1e-6), as the run exported it.
    expect(model.sessions.map((s) => s.advantage)).toEqual([0.7071057811879616, -0.7071057811879616]);
    expect(group!.sessionIds).toEqual(model.sessions.map((s) => s.id));
  });

  it("should build the forest tree: depths, tolerated edits on the observations, the exported leaf", () => {
    const forest = model.sessions[0]!.forest!;
    expect([forest.observationCount, forest.responseCount]).toEqual([3, 3]);
    expect(
      forest.nodes.map((node) => [node.kind, node.turnId, node.depth, node.leaf, node.transition]),
    ).toEqual([
      ["observation", 0, 0, false, "append"],
      ["response", 0, 1, false, "append"],
      ["observation", 1, 2, false, "drift"],
      ["response", 1, 3, false, "drift"],
      ["observation", 2, 4, false, "drift"],
      ["response", 2, 5, true, "drift"],
    ]);
    expect(forest.nodes.map((node) => node.toleratedEdits.length)).toEqual([0, 0, 1, 0, 2, 0]);
    expect(forest.nodes[4]!.toleratedEdits).toEqual([
      "reasoning_dropped@messages[1].reasoning_content",
      "reasoning_dropped@messages[3].reasoning_content",
    ]);
    const leaf = forest.nodes[5]!;
    expect([leaf.exportedAs, leaf.exportedNames, leaf.notExportedReason]).toEqual([
      [model.sessions[0]!.contextIds[0]],
      [null],
      undefined,
    ]);
    expect(forest.nodes[5]!.messages).toEqual([
      { role: "assistant", text: "Answer 3.", reasoning: "turn 3" },
    ]);
    expect(forest.diffs).toEqual([]);
  });

  it("should lay the context out as a strip in row coordinates with turns, spans and decoded tokens", () => {
    const context = model.contexts[0]!;
    const dump = JSON.parse(readFileSync(fixture("drift-debug-0.json"), "utf8"));
    const sample = dump.groups[0].samples[0];
    expect(context.tokens).toEqual(sample.tokens);
    expect(context.lossMask).toHaveLength(context.tokens.length);
    expect(context.lossMask).toEqual([...new Array(15).fill(0), ...sample.loss_mask]);
    expect(context.logprobs.slice(15)).toEqual(sample.rollout_log_probs);
    expect(context.turns.map((turn) => [turn.observation, turn.generated, turn.transition])).toEqual([
      [[15, 15], [15, 28], "append"],
      [[28, 41], [41, 54], "drift"],
      [[54, 67], [67, 80], "drift"],
    ]);
    // Generated tokens are exactly the loss-mask-1 positions.
    for (const turn of context.turns) {
      for (let i = turn.generated[0]; i < turn.generated[1]; i++) expect(context.lossMask[i]).toBe(1);
      for (let i = turn.observation[0]; i < turn.observation[1]; i++) expect(context.lossMask[i]).toBe(0);
    }
    expect(context.weightVersionSpans).toEqual([
      { version: "default", start: 15, end: 28 },
      { version: "default", start: 41, end: 54 },
      { version: "default", start: 67, end: 80 },
    ]);
    expect(context.abortPoints).toEqual([]);
    expect(context.turns[1]!.request).toEqual([{ role: "user", text: "Continue (1)." }]);
    expect(context.turns[1]!.reply).toEqual({ role: "assistant", text: "Answer 2.", reasoning: "turn 2" });
    expect(model.vocab[String(context.tokens[0])]).toBe(`<${context.tokens[0]}>`);
    expect(Object.keys(model.vocab)).toHaveLength(new Set(model.contexts.flatMap((c) => c.tokens)).size);
  });
});

describe("buildViewModel from the demo fixture", () => {
  it("should read 2 Groups × 4 sessions, 6 nodes each, one exported leaf per session", () => {
    const model = buildViewModel({ sources: [source("demo-debug-0.json")] });
    expect(
      model.steps[0]!.groups.map((group) => [group.index, group.sessionIds.length, group.contextIds.length]),
    ).toEqual([
      [0, 4, 4],
      [1, 4, 4],
    ]);
    for (const session of model.sessions) {
      expect(session.forest!.nodes).toHaveLength(6);
      expect(session.forest!.nodes.filter((node) => node.exportedAs.length > 0)).toHaveLength(1);
    }
    expect(model.vocab).toEqual({});
  });

  it("should show Groups by index although the dump lists them in the order they finished", () => {
    const dump = JSON.parse(readFileSync(fixture("demo-debug-0.json"), "utf8"));
    dump.groups.reverse();
    const model = buildViewModel({ sources: [parseViewSource("d.json", JSON.stringify(dump))] });
    expect(model.steps[0]!.groups.map((group) => group.index)).toEqual([0, 1]);
  });
});

describe("buildForestView", () => {
  const observation = (state: string, parent: string, turn: number, content: string, extra = {}) => ({
    state_hash: hash(state),
    parent_state_hash: hash(parent),
    kind: "observation" as const,
    turn_id: turn,
    token_count: 4,
    prefix_tokens: 0,
    messages: [{ role: "user", content }],
    exported_as: [],
    ...extra,
  });
  const response = (
    state: string,
    parent: string,
    turn: number,
    content: string,
    exported: (string | null)[] = [],
  ) => ({
    state_hash: hash(state),
    parent_state_hash: hash(parent),
    kind: "response" as const,
    turn_id: turn,
    token_count: 3,
    prefix_tokens: 4,
    messages: [{ role: "assistant", content }],
    finish_reason: "stop" as const,
    exported_as: exported,
  });
  const turn = (
    id: number,
    transition: "append" | "branch" | "drift" | "reset",
    observationHash: string,
  ) => ({
    turn_id: id,
    transition,
    linear: transition === "append",
    tolerated_edits: [],
    edits: transition === "branch" ? [{ kind: "rewritten", path: "messages[1].content" }] : [],
    observation_state_hash: hash(observationHash),
    status: "committed" as const,
    request_messages: 1,
    matched_messages: 0,
    prompt_tokens: 4,
  });

  it("should say why a leaf was not exported and diff a false fork at the first differing field", () => {
    // A session that forked: the agent rewrote the first answer, so the second request branched.
    const session: ViewDumpSession = {
      session_id: "s",
      slot: 0,
      forest: {
        root_state_hash: hash("0"),
        nodes: [
          observation("a", "0", 0, "task"),
          response("b", "a", 0, "first answer"),
          observation("c", "b", 1, "tool says 4"),
          response("d", "c", 1, "done", ["main"]),
          response("e", "a", 2, "first answer, reworded"),
          observation("f", "e", 3, "tool says 4", { failure: "engine_error" }),
        ],
        turns: [
          turn(0, "append", "a"),
          turn(1, "append", "c"),
          turn(2, "branch", "a"),
          turn(3, "append", "f"),
        ],
      },
    };
    const view = buildForestView({ session, step: "3", contextIdsByHash: new Map([[hash("d"), ["3/s/0"]]]) });
    expect(
      view.nodes.map((node) => [
        node.stateHash[0],
        node.parent?.[0] ?? null,
        node.depth,
        node.children.length,
      ]),
    ).toEqual([
      ["a", null, 0, 2],
      ["b", "a", 1, 1],
      ["c", "b", 2, 1],
      ["d", "c", 3, 0],
      ["e", "a", 1, 1],
      ["f", "e", 2, 0],
    ]);
    expect(
      view.nodes.filter((node) => node.leaf).map((node) => [node.exportedAs, node.notExportedReason]),
    ).toEqual([
      [["3/s/0"], undefined],
      [[], "generation failed: engine_error"],
    ]);
    expect(view.turns[2]).toMatchObject({
      transition: "branch",
      linear: false,
      edits: ["rewritten@messages[1].content"],
    });
    expect(view.diffs).toHaveLength(1);
    expect(view.diffs[0]).toMatchObject({
      id: "3/s/diff1",
      firstDifferentMessage: 1,
      firstDifferentField: "messages[1].content",
      left: { stateHash: hash("d") },
      right: { stateHash: hash("f") },
    });
    expect(view.diffs[0]!.left.messages.map((m) => m.text)).toEqual([
      "task",
      "first answer",
      "tool says 4",
      "done",
    ]);
    expect(view.diffs[0]!.right.messages.map((m) => m.text)).toEqual([
      "task",
      "first answer, reworded",
      "tool says 4",
    ]);
  });

  it("should name the Group drop as the reason when nothing was exported", () => {
    const session: ViewDumpSession = {
      session_id: "s",
      slot: 0,
      forest: {
        root_state_hash: hash("0"),
        nodes: [
          observation("a", "0", 0, "task"),
          response("b", "a", 0, "x"),
          response("c", "a", 1, "y"),
          // Compaction: a new subtree whose first observation links back to the state it replaced.
          observation("g", "0", 2, "summary of x", { reset_from: hash("b") }),
        ],
        turns: [turn(0, "append", "a"), turn(1, "branch", "a"), turn(2, "reset", "g")],
      },
    };
    const view = buildForestView({
      session,
      step: "0",
      contextIdsByHash: new Map(),
      groupDropReason: "ambiguous_implicit_export",
    });
    expect(view.nodes.filter((node) => node.leaf).map((node) => node.notExportedReason)).toEqual([
      "Group not exported: ambiguous_implicit_export",
      "Group not exported: ambiguous_implicit_export",
      "Group not exported: ambiguous_implicit_export",
    ]);
    expect(view.nodes[3]).toMatchObject({
      parent: null,
      depth: 0,
      transition: "reset",
      resetFrom: hash("b"),
    });
  });
});

describe("diffHistories", () => {
  it("should find the first differing message and field path, or report a prefix", () => {
    const call = (args: string) => ({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: args } }],
    });
    expect(
      diffHistories(
        [{ role: "user", content: "a" }, call('{"x":1}')],
        [{ role: "user", content: "a" }, call('{"x": 1}')],
      ),
    ).toEqual({
      message: 1,
      field: "messages[1].tool_calls[0].function.arguments",
    });
    expect(
      diffHistories([{ role: "user", content: "a" }], [{ role: "user", content: "a", name: "n" }]),
    ).toEqual({
      message: 0,
      field: "messages[0].name",
    });
    expect(
      diffHistories([{ role: "user", content: "a" }], [{ role: "user", content: "a" }, call("{}")]),
    ).toEqual({
      message: -1,
      field: null,
    });
  });
});

describe("rows files and bad input", () => {
  const row: TrainingRow = {
    tokens: [5, 6, 7, 8],
    loss_mask: [1, 0],
    rollout_log_probs: [-0.5, 0],
    advantage: 1,
    advantages: [1, 0],
    reward: 1,
    reward_details: {},
    response_length: 2,
    prompt_length: 2,
    status: "completed",
    weight_versions: ["3"],
    weight_version_spans: [{ version: "3", start: 0, end: 1 }],
    abort_count: 0,
    rollout_id: "r",
    group_index: 2,
    prompt_index: 7,
    sample_index: 0,
    session_id: "sess",
    context_name: null,
    state_hash: hash("a"),
    num_turns: 1,
    stop_reason: "stop",
    metadata: { rollout_mode: "train" },
  };

  it("should read a rows file as a step without forests", () => {
    const model = buildViewModel({
      sources: [parseViewSource("rows.jsonl", formatTrainingRowsJsonl([row]))],
    });
    expect(model.steps[0]).toMatchObject({ id: "rows.jsonl", kind: "rows", weightVersions: ["3"] });
    expect(model.steps[0]!.groups).toMatchObject([
      { index: 2, rewardMean: 1, contextIds: ["rows.jsonl/sess/0"] },
    ]);
    expect(model.sessions[0]!.forest).toBeUndefined();
    expect(model.contexts[0]).toMatchObject({ lossMask: [0, 0, 1, 0], logprobs: [0, 0, -0.5, 0], turns: [] });
  });

  it("should name the file and field path of a damaged dump", () => {
    const dump = JSON.parse(readFileSync(fixture("drift-debug-0.json"), "utf8"));
    dump.groups[0].samples[1].loss_mask[3] = 2;
    let error: unknown;
    try {
      parseViewSource("bad.json", JSON.stringify(dump));
    } catch (caught) {
      error = caught;
    }
    expect(ViewInputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^bad\.json: groups\[0\]\.samples\[1\]\.loss_mask\[3\]: /);
    expect(() => parseViewSource("x.json", "{nope")).toThrowError(/^x\.json: \$: is not valid JSON/);
    expect(() => parseViewSource("rows.jsonl", '{"tokens":[1]}\n')).toThrowError(/^rows\.jsonl: line 1 /);
  });
});

describe("renderPage", () => {
  it("should inline everything and keep model text from closing the script element", () => {
    const model = buildViewModel({ sources: [source("drift-debug-0.json")], title: "</script><b>x" });
    model.vocab["1"] = "</script><script>alert(1)</script>";
    const html = renderPage(model);
    expect(html).not.toMatch(/<(script|link)[^>]+src=/);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain("<title>&#60;/script&#62;&#60;b&#62;x</title>");
    const data = html.match(/<script type="application\/json" id="relax-view-data">(.*?)<\/script>/s)![1]!;
    expect(JSON.parse(data).vocab["1"]).toBe("</script><script>alert(1)</script>");
  });

  it("should embed the current client bundle (scripts/bundle-client.mjs --check)", () => {
    const script = new URL("../scripts/bundle-client.mjs", import.meta.url).pathname;
    expect(() => execFileSync(process.execPath, [script, "--check"], { stdio: "pipe" })).not.toThrow();
  });
});

describe("buildViewModel: what a session was asked and did, and its side forests", () => {
  it("should take the prompt, output, metadata and reward details from the dump, and one view per side forest", () => {
    const dump = JSON.parse(readFileSync(fixture("demo-debug-0.json"), "utf8"));
    const target = dump.groups[0].sessions[0];
    const { forest } = target;
    target.side_forests = {
      compaction: {
        root_state_hash: forest.root_state_hash,
        nodes: [
          { ...forest.nodes[0], state_hash: hash("c"), messages: [{ role: "user", content: "Summarise." }] },
        ],
        turns: [
          { ...forest.turns[0], observation_state_hash: hash("c"), status: "failed", failure: "aborted" },
        ],
      },
    };
    dump.groups[0].samples[0].reward_details = { format: 1, correct: 0 };
    const model = buildViewModel({ sources: [parseViewSource("side.json", JSON.stringify(dump))] });
    const [first, second] = model.sessions;
    expect(first!.prompt!.map((message) => [message.role, message.text.slice(0, 26)])).toEqual([
      ["user", "Janet’s ducks lay 16 eggs "],
    ]);
    expect(first!.promptText).toMatch(/^<\|im_start\|>system\n# Tools\n/);
    expect(first!.output).toEqual({
      role: "assistant",
      text: "The answer is 20.\n#### 20",
      reasoning: "The calculator results give 20.",
    });
    expect(first!.metadata).toEqual({
      answer: "18",
      predicted: "20",
      turns: 3,
      tool_calls: 2,
      finish: "answer",
    });
    expect(first!.rewardDetails).toEqual({ format: 1, correct: 0 });
    expect(second!.rewardDetails).toBeUndefined(); // `{}` in the dump: nothing to show
    expect(first!.requestClasses).toEqual(["main", "compaction"]);
    expect(second!.requestClasses).toEqual(["main"]);
    expect(first!.sideForests).toHaveLength(1);
    const side = first!.sideForests[0]!;
    expect([side.requestClass, side.policy, side.forest.observationCount, side.forest.responseCount]).toEqual(
      ["compaction", "record", 1, 0],
    );
    expect(
      side.forest.nodes.map((node) => [node.stateHash, node.exportedAs, node.notExportedReason]),
    ).toEqual([[hash("c"), [], "recorded as compaction, never trained (policy record)"]]);
    expect(side.forest.turns.map((turn) => [turn.status, turn.failure])).toEqual([["failed", "aborted"]]);
  });

  it("should show a trained side forest (policy train) with its leaf linked to its side context", () => {
    const dump = JSON.parse(readFileSync(fixture("demo-debug-0.json"), "utf8"));
    const target = dump.groups[0].sessions[0];
    const { forest } = target;
    target.side_forests = {
      compaction: {
        root_state_hash: forest.root_state_hash,
        nodes: [{ ...forest.nodes[0], state_hash: hash("c"), exported_as: ["compaction:0"] }],
        turns: [{ ...forest.turns[0], observation_state_hash: hash("c") }],
      },
    };
    const own = dump.groups[0].samples.find(
      (sample: { session_id: string }) => sample.session_id === target.session_id,
    );
    dump.groups[0].samples.push({ ...own, state_hash: hash("c"), context_name: "compaction:0" });
    const model = buildViewModel({ sources: [parseViewSource("trained.json", JSON.stringify(dump))] });
    const side = model.sessions[0]!.sideForests[0]!;
    expect([side.requestClass, side.policy]).toEqual(["compaction", "train"]);
    const [leaf] = side.forest.nodes;
    expect([leaf!.exportedAs.length, leaf!.notExportedReason]).toEqual([1, undefined]);
    expect(model.contexts.some((context) => leaf!.exportedAs.includes(context.id))).toBe(true);
  });
});

describe("buildViewModel: images of a row on their pad tokens", () => {
  it("should place each multimodal_train_inputs entry on its run of pad tokens, bytes as a data: URL", () => {
    const model = buildViewModel({
      sources: [parseViewSource("vision.jsonl", formatTrainingRowsJsonl([imageRow()]))],
    });
    expect(model.contexts[0]!.images).toEqual([
      { src: `data:image/png;base64,${RED_PNG}`, format: "png", width: 4, height: 2, start: 4, end: 8 },
      { url: "https://example.invalid/screen.png", format: "png", width: 4, height: 2, start: 11, end: 14 },
    ]);
    expect(model.contexts[0]!.tokens.slice(4, 8)).toEqual([IMAGE_PAD, IMAGE_PAD, IMAGE_PAD, IMAGE_PAD]);
    expect(model.sessions[0]!.metadata).toEqual({ rollout_mode: "train", answer: "red" });
    // A text row has none.
    expect(buildViewModel({ sources: [source("drift-debug-0.json")] }).contexts.map((c) => c.images)).toEqual(
      [[], []],
    );
  });
});

describe("buildViewModel: a dump's reward source, credit and images", () => {
  it("should describe where each session's reward and advantage came from, and place the dump's images", async () => {
    const dump = await visionDump();
    const model = buildViewModel({ sources: [parseViewSource("vision-debug-0.json", JSON.stringify(dump))] });
    expect(model.sessions.map((s) => [s.sessionId, s.reward, s.rewardSource, s.advantageSource])).toEqual([
      [
        "vision-a",
        1,
        'agent output: output.reward (field "score")',
        "normalised in the Group: grpo ((r − mean) / std)",
      ],
      [
        "vision-b",
        0,
        'agent output: output.reward (field "score")',
        "normalised in the Group: grpo ((r − mean) / std)",
      ],
    ]);
    const start = dump.groups[0]!.samples[0]!.tokens.indexOf(151652) + 1;
    expect(model.contexts[0]!.images).toEqual([
      { src: SCREEN, format: "png", width: 112, height: 84, start, end: start + 12 },
    ]);
    // Older dumps carry no sources; a rows file carries the reward source only.
    expect(
      buildViewModel({ sources: [source("demo-debug-0.json")] }).sessions[0]!.rewardSource,
    ).toBeUndefined();
    const row = {
      ...imageRow(),
      reward_source: { kind: "reward_function" as const, function: "./rm.mjs#score" },
    };
    const rows = buildViewModel({
      sources: [parseViewSource("vision.jsonl", formatTrainingRowsJsonl([row]))],
    });
    expect([rows.sessions[0]!.rewardSource, rows.sessions[0]!.advantageSource]).toEqual([
      "reward function ./rm.mjs#score",
      undefined,
    ]);
    expect(rows.contexts[0]!.rewardSource).toBe("reward function ./rm.mjs#score");
  });

  it("should word every source kind, and show a kind it does not know as JSON", () => {
    expect(
      [
        { kind: "agent_output", path: "records[1].reward" },
        { kind: "reward_function", function: "./rm.mjs#score", copied_from: hash("c") },
        { kind: "group_reward_function", function: "inline" },
        { kind: "none" },
        { kind: "llm_judge", model: "x" },
      ].map(describeRewardSource),
    ).toEqual([
      "agent output: records[1].reward",
      `reward function ./rm.mjs#score — copied from the last segment ${"c".repeat(8)}`,
      "group reward function inline",
      "none",
      '{"kind":"llm_judge","model":"x"}',
    ]);
    expect(
      [
        { kind: "normalized", estimator: "grpo", std_normalization: false },
        { kind: "normalized", estimator: "rloo" },
        { kind: "reward" },
        { kind: "custom_advantage", function: "./credit.mjs#advantage" },
        { kind: "eval" },
        { kind: "none" },
      ].map(describeAdvantageSource),
    ).toEqual([
      "normalised in the Group: grpo (r − mean)",
      "normalised in the Group: rloo",
      "the reward (no normalisation)",
      "custom advantage function ./credit.mjs#advantage",
      "0 (eval)",
      "none (the Group was dropped or filtered before credit)",
    ]);
  });
});
