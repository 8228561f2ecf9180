import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { formatTrainingRowsJsonl } from "@relax/export";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildViewModel, parseViewSource, renderPage, type ViewModel } from "../src/index";
import { fixture, qwen3DecodeToken, source } from "./helpers";
import { imageRow } from "./image-row";
import { visionDump } from "./vision-dump";

/**
 * End to end in real headless Chromium (Debian's `chromium`, installed by `.ci/run`): the page built from
 * committed dumps of real runs (test/fixtures/README.md) is opened from a file, clicked and typed through.
 * Fails loudly when Chromium is missing — the test is never skipped.
 */
const CHROMIUM = process.env.RELAX_CHROMIUM ?? "/usr/bin/chromium";
const artifacts = new URL("../test-artifacts/", import.meta.url).pathname;

let browser: Browser;
let model: ViewModel;
let pageUrl: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y --no-install-recommends chromium\` (.ci/run does) or set RELAX_CHROMIUM`,
    );
  }
  mkdirSync(artifacts, { recursive: true });
  // launch() gives every run a fresh, temporary --user-data-dir of its own (removed on close).
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  model = buildViewModel({
    sources: [source("demo-debug-0.json"), source("drift-debug-0.json")],
    decodeToken: await qwen3DecodeToken(),
    title: "relax view — demo and drift fixtures",
  });
  const file = join(artifacts, "relax-view.html");
  writeFileSync(file, renderPage(model));
  pageUrl = pathToFileURL(file).href;
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function open(colorScheme: "light" | "dark" = "light"): Promise<Page> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto(pageUrl);
  expect(errors).toEqual([]);
  return page;
}

describe("relax view in headless Chromium", () => {
  it("should show the run, open a drift session's forest and an exported context, by mouse and keyboard", async () => {
    const page = await open();
    // Run view: both steps, every session, sortable.
    await expect(page.locator("section.step h2").allTextContents()).resolves.toEqual([
      expect.stringMatching(/^step 0 train · demo-debug-0\.json/),
      expect.stringMatching(/^step 0 \(drift-debug-0\.json\) train · drift-debug-0\.json/),
    ]);
    expect(await page.locator("a.session-link").count()).toBe(10);
    const rewardHeader = page.locator("#sessions-0 th", { hasText: "reward" }).first();
    await rewardHeader.click();
    expect(await rewardHeader.getAttribute("aria-sort")).toBe("ascending");
    const rewards = await page
      .locator("#sessions-0 tbody tr td:nth-child(4)")
      .evaluateAll((cells) => cells.map((cell) => Number((cell as HTMLElement).dataset.key)));
    expect(rewards).toEqual([...rewards].sort((a, b) => a - b));

    // Session view of the first drift session: 3 observation + 3 response nodes, tolerated edits shown.
    const drift = model.sessions.find((session) => session.step.includes("drift"))!;
    await page.locator("a.session-link", { hasText: drift.sessionId }).click();
    await page.waitForSelector('[role="treeitem"]');
    expect(await page.locator("#observation-count").textContent()).toBe("3");
    expect(await page.locator("#response-count").textContent()).toBe("3");
    expect(await page.locator('[role="treeitem"]').count()).toBe(6);
    expect(await page.locator('[role="treeitem"].response').count()).toBe(3);
    const nodeEdits = await page.locator('[role="treeitem"] .edit.tolerated').allTextContents();
    expect(nodeEdits).toEqual([
      "reasoning_dropped@messages[1].reasoning_content",
      "reasoning_dropped@messages[1].reasoning_content",
      "reasoning_dropped@messages[3].reasoning_content",
    ]);
    expect(
      await page
        .locator('[role="treeitem"]')
        .evaluateAll((items) => items.map((item) => item.querySelectorAll(".edit.tolerated").length)),
    ).toEqual([0, 0, 1, 0, 2, 0]);
    expect(await page.locator("#turns .badge").allTextContents()).toEqual(["append", "drift", "drift"]);
    expect(await page.locator('[role="treeitem"] .badge.exported').allTextContents()).toEqual([
      "exported as implicit",
    ]);
    expect(await page.locator('[role="treeitem"] .not-exported').count()).toBe(0);
    await page.screenshot({ path: join(artifacts, "relax-view-session.png"), fullPage: true });

    // Keyboard: the tree is navigable with arrows; Enter on the exported leaf opens its context.
    await page.locator('[role="treeitem"]').first().focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("End");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-context"))).toBe(
      drift.contextIds[0],
    );
    await page.keyboard.press("Enter");
    await page.waitForSelector("#strip .tok");

    // Context view: mask colours on the generated spans, per-token text, turn boundaries.
    const context = model.contexts.find((candidate) => candidate.id === drift.contextIds[0])!;
    expect(await page.locator("#token-count").textContent()).toBe(String(context.tokens.length));
    const tokens = await page.locator("#strip .tok").evaluateAll((spans) =>
      spans.map((span) => ({
        i: Number((span as HTMLElement).dataset.i),
        gen: span.classList.contains("gen"),
        background: getComputedStyle(span).backgroundColor,
        text: span.textContent,
      })),
    );
    expect(tokens).toHaveLength(context.tokens.length);
    expect(tokens.map((token) => token.gen)).toEqual(context.lossMask.map((bit) => bit === 1));
    const generated = tokens.filter((token) => token.gen);
    expect(new Set(generated.map((token) => token.background))).toEqual(new Set(["rgb(183, 228, 193)"]));
    expect(tokens.find((token) => !token.gen && token.i < context.promptLength)!.background).toBe(
      "rgba(0, 0, 0, 0)",
    );
    expect(tokens[context.promptLength]!.text).toBe(
      model.vocab[String(context.tokens[context.promptLength])]!.replace(/\n/g, "↵") || "∅",
    );
    expect(
      await page
        .locator("#strip .tok.turn-start")
        .evaluateAll((spans) => spans.map((s) => Number((s as HTMLElement).dataset.i))),
    ).toEqual(
      context.turns.flatMap((turn, t) =>
        t === 0 ? [turn.generated[0]] : [turn.observation[0], turn.generated[0]],
      ),
    );
    expect(await page.locator(".turn-panel summary .edit.tolerated").count()).toBe(3);

    // Keyboard in the strip: select, move, jump to the next turn boundary.
    await page.locator("#strip").focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    expect(await page.locator("#token-info").textContent()).toMatch(/^#1 · id \d+ /);
    await page.keyboard.press("]");
    expect(await page.locator("#token-info").textContent()).toMatch(
      new RegExp(
        `^#${context.promptLength} · id ${context.tokens[context.promptLength]} .* generated \\(loss_mask 1\\) · logprob `,
      ),
    );
    await page.locator("#strip .tok.gen").first().hover();
    expect(await page.locator("#token-info").textContent()).toContain("weight default");
    await page.screenshot({ path: join(artifacts, "relax-view-context.png") });

    // Escape goes back up to the session.
    await page.keyboard.press("Escape");
    await page.waitForSelector('[role="treeitem"]');
    expect(await page.evaluate(() => document.body.dataset.view)).toBe("session");
    await page.context().close();
  }, 60_000);

  it("should render a demo context readably in dark mode (the README screenshot)", async () => {
    const page = await open("dark");
    const session = model.sessions[0]!;
    await page.goto(`${pageUrl}#/context/${encodeURIComponent(session.contextIds[0]!)}`);
    await page.waitForSelector("#strip .tok.gen");
    const background = await page
      .locator("#strip .tok.gen")
      .first()
      .evaluate((span) => getComputedStyle(span).backgroundColor);
    expect(background).toBe("rgb(31, 90, 50)");
    await page.locator("#strip .tok.gen").nth(3).hover();
    await page.locator(".turn-panel").nth(1).locator("summary").click();
    await page.screenshot({ path: join(artifacts, "relax-view-dark.png") });
    await page.emulateMedia({ colorScheme: "light" });
    await page.screenshot({ path: join(artifacts, "relax-view.png") });
    await page.context().close();
  }, 60_000);

  it("should show a session's prompt, expected answer, output, request classes and side forests, and filter the run", async () => {
    // The demo dump with a recorded `title` side forest in its first session and its second Group dropped.
    const dump = JSON.parse(readFileSync(fixture("demo-debug-0.json"), "utf8"));
    const target = dump.groups[0].sessions[0];
    const main = target.forest;
    const firstRequest = main.nodes.find(
      (node: { kind: string; parent_state_hash: string }) =>
        node.kind === "observation" && node.parent_state_hash === main.root_state_hash,
    );
    const firstReply = main.nodes.find(
      (node: { parent_state_hash: string }) => node.parent_state_hash === firstRequest.state_hash,
    );
    const [titleAsk, titleReply] = ["a".repeat(64), "b".repeat(64)];
    target.side_forests = {
      title: {
        root_state_hash: main.root_state_hash,
        nodes: [
          {
            ...firstRequest,
            state_hash: titleAsk,
            messages: [{ role: "user", content: "Title this chat." }],
          },
          {
            ...firstReply,
            state_hash: titleReply,
            parent_state_hash: titleAsk,
            messages: [{ role: "assistant", content: "Duck eggs at the market" }],
            exported_as: [],
          },
        ],
        turns: [{ ...main.turns[0], observation_state_hash: titleAsk, response_state_hash: titleReply }],
      },
    };
    Object.assign(dump.groups[1], {
      outcome: "dropped",
      reason: "agent_timeout",
      message: "no answer in 600 s",
    });
    const page1 = buildViewModel({
      sources: [parseViewSource("demo-side.json", JSON.stringify(dump)), source("drift-debug-0.json")],
      decodeToken: await qwen3DecodeToken(),
      sessionLog: (sessionId) =>
        sessionId === target.session_id
          ? "calculator: 16-3-4 = 9\ncalculator: 10*2 = 20\nanswer: 20"
          : undefined,
    });
    const file = join(artifacts, "relax-view-side.html");
    writeFileSync(file, renderPage(page1));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href);
    const shown = () =>
      page.locator('table[id^="sessions-"] tbody tr:not([hidden]) a.session-link').allTextContents();
    const all = page1.sessions.map((session) => session.sessionId);
    expect(await shown()).toEqual(all);
    expect(await page.locator("#filter-count").textContent()).toBe(`${all.length} of ${all.length} sessions`);

    // Filters: reward, drop reason, request class, weight version (each alone, then back to any).
    const demo = page1.sessions.filter((session) => session.step === "0");
    expect(await page.locator("#filter-reward option").allTextContents()).toEqual(["any", "= 0", "= 1"]);
    await page.selectOption("#filter-reward", "1");
    expect(await shown()).toEqual(page1.sessions.filter((s) => s.reward === 1).map((s) => s.sessionId));
    expect(await page.locator("#filter-count").textContent()).toBe(
      `${page1.sessions.filter((s) => s.reward === 1).length} of ${all.length} sessions`,
    );
    await page.selectOption("#filter-reward", "");
    expect(await page.locator("#filter-drop option").allTextContents()).toEqual([
      "any",
      "not dropped",
      "agent_timeout",
    ]);
    await page.selectOption("#filter-drop", "agent_timeout");
    const dropped = demo.filter((session) => session.groupIndex === 1).map((session) => session.sessionId);
    expect(dropped).toHaveLength(4);
    expect(await shown()).toEqual(dropped);
    expect(
      await page.locator('table[id^="sessions-"] tbody tr:not([hidden]) td:nth-child(11)').allTextContents(),
    ).toEqual(["agent_timeout", "agent_timeout", "agent_timeout", "agent_timeout"]);
    await page.selectOption("#filter-drop", "-");
    expect(await shown()).toEqual(all.filter((id) => !dropped.includes(id)));
    await page.selectOption("#filter-drop", "");
    expect(await page.locator("#filter-class option").allTextContents()).toEqual(["any", "main", "title"]);
    await page.selectOption("#filter-class", "title");
    expect(await shown()).toEqual([demo[0]!.sessionId]);
    await page.selectOption("#filter-class", "");
    expect(await page.locator("#filter-version option").allTextContents()).toEqual(["any", "default"]);
    await page.selectOption("#filter-version", "default");
    expect(await shown()).toEqual(all);
    await page.screenshot({ path: join(artifacts, "relax-view-run.png") });
    await page.selectOption("#filter-version", "");

    // The session: prompt, expected answer, agent output, reward; its request classes and the side forest.
    await page.locator("a.session-link", { hasText: demo[0]!.sessionId }).click();
    await page.waitForSelector("#session-prompt");
    expect(await page.locator("#session-prompt .msg pre").first().textContent()).toMatch(
      /^Janet’s ducks lay 16 eggs per day\./,
    );
    expect(await page.locator("#expected-answer").textContent()).toBe("18");
    expect(await page.locator("#session-output pre:not(.reasoning)").textContent()).toBe(
      "The answer is 20.\n#### 20",
    );
    expect(await page.locator("#session-reward dd").first().textContent()).toBe("0");
    expect(await page.locator("#session-log").textContent()).toBe(
      "calculator: 16-3-4 = 9\ncalculator: 10*2 = 20\nanswer: 20",
    );
    expect(await page.locator("#session-metadata th").allTextContents()).toEqual([
      "answer",
      "predicted",
      "turns",
      "tool_calls",
      "finish",
    ]);
    expect(await page.locator("#request-classes .badge").allTextContents()).toEqual([
      "main → train",
      "title → record",
    ]);
    expect(await page.locator("#turns th").first().textContent()).toBe("turn");
    expect(await page.locator("#turns th").nth(1).textContent()).toBe("transition");
    const side = page.locator('section.side-forest[data-class="title"]');
    expect(await side.locator("h2").textContent()).toBe(
      "side requests: title policy record (recorded, never trained) · 1 observation · 1 response nodes",
    );
    expect(await side.locator('[role="treeitem"] .preview').allTextContents()).toEqual([
      "user: Title this chat.",
      "assistant: Duck eggs at the market",
    ]);
    expect(await side.locator('[role="treeitem"] .not-exported').allTextContents()).toEqual([
      "not exported: recorded as title, never trained (policy record)",
    ]);
    expect(await side.locator("#turns-title tbody tr").count()).toBe(1);
    await page.screenshot({ path: join(artifacts, "relax-view-session-about.png"), fullPage: true });

    // The context: a jump to the first generated token, by button and by `g` in the strip.
    await page.locator("a", { hasText: "#0" }).first().click();
    await page.waitForSelector("#strip .tok");
    const context = page1.contexts.find((candidate) => candidate.id === demo[0]!.contextIds[0])!;
    const firstGenerated = context.lossMask.indexOf(1);
    expect(firstGenerated).toBe(context.promptLength);
    await page.locator("#jump-first-generated").click();
    expect(await page.locator("#token-info").textContent()).toMatch(
      new RegExp(`^#${firstGenerated} · id ${context.tokens[firstGenerated]} .* generated \\(loss_mask 1\\)`),
    );
    await page.keyboard.press("Home");
    expect(await page.locator("#token-info").textContent()).toMatch(/^#0 · /);
    await page.keyboard.press("g");
    expect(await page.locator("#token-info").textContent()).toMatch(new RegExp(`^#${firstGenerated} · `));
    await page.close();
  }, 60_000);

  it("should show a row's images where its image pads are, and jump to them", async () => {
    const vision = buildViewModel({
      sources: [parseViewSource("vision.jsonl", formatTrainingRowsJsonl([imageRow()]))],
      decodeToken: await qwen3DecodeToken(),
    });
    const file = join(artifacts, "relax-view-image.html");
    writeFileSync(file, renderPage(vision));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(`${pathToFileURL(file).href}#/context/${encodeURIComponent(vision.contexts[0]!.id)}`);
    await page.waitForSelector("#strip .tok");
    expect(await page.locator("figure.row-image").count()).toBe(2);
    const first = page.locator("figure.row-image").first();
    await first.locator("img").evaluate((img) => (img as HTMLImageElement).decode());
    expect(await first.locator("img").evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(4);
    expect(await first.locator("figcaption").textContent()).toBe(
      "image 1 · tokens 4–8 (4 pads) · 4×2 show in strip",
    );
    expect(await page.locator("figure.row-image").nth(1).locator(".note").textContent()).toBe(
      "not embedded: https://example.invalid/screen.png",
    );
    expect(
      await page
        .locator("#strip .tok.img")
        .evaluateAll((spans) => spans.map((span) => Number((span as HTMLElement).dataset.i))),
    ).toEqual([4, 5, 6, 7, 11, 12, 13]);
    expect(await page.locator("#strip .tok.img").first().textContent()).toBe("<|image_pad|>");
    await page.locator("#strip .tok.img").first().hover();
    expect(await page.locator("#token-info").textContent()).toMatch(/^#4 · id 151655 .* · image 1 pad$/);
    await page.locator("figure.row-image").nth(1).locator("button.jump").click();
    expect(await page.locator("#token-info").textContent()).toMatch(/^#11 · id 151655 .* · image 2 pad$/);
    await page.screenshot({ path: join(artifacts, "relax-view-image.png") });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("should show a dump's reward source and credit, and its images on their pads", async () => {
    const dump = await visionDump();
    const vision = buildViewModel({
      sources: [parseViewSource("vision-debug-0.json", JSON.stringify(dump))],
      decodeToken: await qwen3DecodeToken(),
    });
    const file = join(artifacts, "relax-view-vision-dump.html");
    writeFileSync(file, renderPage(vision));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(`${pathToFileURL(file).href}#/session/${encodeURIComponent(vision.sessions[0]!.id)}`);
    await page.waitForSelector("#session-reward");
    expect(await page.locator("#reward-source").textContent()).toBe(
      'agent output: output.reward (field "score")',
    );
    expect(await page.locator("#advantage-source").textContent()).toBe(
      "0.707 · normalised in the Group: grpo ((r − mean) / std)",
    );
    expect(await page.locator("#session-reward dt").allTextContents()).toEqual([
      "reward",
      "reward source",
      "advantage",
      "expected answer",
      "format",
    ]);
    expect(await page.locator("#expected-answer").textContent()).toBe("Save");
    await page.screenshot({ path: join(artifacts, "relax-view-session-source.png") });

    // Its context: the same sources, and the screenshot inline on its 12 pads (112×84 → 4×3 merged patches).
    await page.locator("a", { hasText: "#0" }).first().click();
    await page.waitForSelector("#strip .tok");
    expect(await page.locator("#context-reward-source").textContent()).toBe(
      'agent output: output.reward (field "score")',
    );
    expect(await page.locator("#context-advantage-source").textContent()).toBe(
      "normalised in the Group: grpo ((r − mean) / std)",
    );
    const image = page.locator("figure.row-image img");
    expect(await image.count()).toBe(1);
    await image.evaluate((img) => (img as HTMLImageElement).decode());
    expect(
      await image.evaluate((img) => [
        (img as HTMLImageElement).naturalWidth,
        (img as HTMLImageElement).naturalHeight,
      ]),
    ).toEqual([112, 84]);
    const pads = await page
      .locator("#strip .tok.img")
      .evaluateAll((spans) => spans.map((span) => Number((span as HTMLElement).dataset.i)));
    const start = dump.groups[0]!.samples[0]!.tokens.indexOf(151652) + 1;
    expect(pads).toEqual(Array.from({ length: 12 }, (_, i) => start + i));
    expect(await page.locator("figure.row-image figcaption").textContent()).toBe(
      `image 1 · tokens ${start}–${start + 12} (12 pads) · 112×84 show in strip`,
    );
    await page.screenshot({ path: join(artifacts, "relax-view-dump-image.png") });

    // The wrong answer's session: reward 0 from the same field, negative credit.
    await page.goto(`${pathToFileURL(file).href}#/session/${encodeURIComponent(vision.sessions[1]!.id)}`);
    await page.waitForSelector("#session-reward");
    expect(await page.locator("#session-reward dd").first().textContent()).toBe("0");
    expect(await page.locator("#advantage-source").textContent()).toBe(
      "-0.707 · normalised in the Group: grpo ((r − mean) / std)",
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("should show a false fork side by side with the first differing message and field", async () => {
    // The drift run's first session with one more, reworded answer to the first request: a second leaf.
    const dump = JSON.parse(readFileSync(fixture("drift-debug-0.json"), "utf8"));
    const forest = dump.groups[0].sessions[0].forest;
    const first = forest.nodes[1];
    forest.nodes.push({
      ...first,
      state_hash: "e".repeat(64),
      turn_id: 3,
      messages: [{ ...first.messages[0], content: "Answer 1, reworded." }],
      exported_as: [],
    });
    forest.turns.push({ ...forest.turns[0], turn_id: 3, transition: "branch", linear: false });
    const forked = buildViewModel({ sources: [parseViewSource("fork.json", JSON.stringify(dump))] });
    const file = join(artifacts, "relax-view-fork.html");
    writeFileSync(file, renderPage(forked));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${pathToFileURL(file).href}#/session/${encodeURIComponent(forked.sessions[0]!.id)}`);
    await page.waitForSelector('[role="treeitem"]');
    expect(await page.locator('[role="treeitem"] .not-exported').allTextContents()).toEqual([
      "not exported: not named by the agent's export",
    ]);
    await page.locator("a", { hasText: " vs " }).click();
    await page.waitForSelector(".diff");
    expect(await page.locator(".first-diff").textContent()).toBe(
      "first differing message: 1, field messages[1].content",
    );
    expect(await page.locator(".diff .side").count()).toBe(2);
    expect(await page.locator(".diff .side:first-child .msg").count()).toBe(6);
    expect(await page.locator(".diff .side:last-child .msg").count()).toBe(2);
    expect(await page.locator(".msg.differs pre:not(.reasoning)").allTextContents()).toEqual([
      "Answer 1.",
      "Answer 1, reworded.",
    ]);
    await page.keyboard.press("Escape");
    await page.waitForSelector('[role="treeitem"]');
    await page.close();
  }, 60_000);

  it("should open a 64k-token row in under a second, rendering only the visible lines", async () => {
    const n = 65_536;
    const promptLength = 1024;
    const tokens = Array.from({ length: n }, (_, i) => 1000 + (i % 5000));
    const responseLength = n - promptLength;
    const dump = {
      rollout_id: "big",
      mode: "train",
      groups: [
        {
          group_index: 0,
          outcome: "exported",
          samples: [
            {
              session_id: "big-session",
              group_index: 0,
              slot: 0,
              context_name: null,
              state_hash: "f".repeat(64),
              status: "completed",
              tokens,
              prompt_length: promptLength,
              response_length: responseLength,
              loss_mask: Array.from({ length: responseLength }, (_, i) => (i % 1000 < 900 ? 1 : 0)),
              rollout_log_probs: Array.from({ length: responseLength }, (_, i) =>
                i % 1000 < 900 ? -0.25 : 0,
              ),
              weight_versions: ["7"],
              weight_version_spans: [{ version: "7", start: 0, end: responseLength }],
              reward: 1,
              advantage: 0.5,
              turn_count: 1,
              turns: [
                {
                  turnIndex: 0,
                  stateHash: "f".repeat(64),
                  transition: "append",
                  toleratedEdits: [],
                  finishReason: "abort",
                  responseSpan: [0, responseLength],
                  observationTokens: 0,
                },
              ],
            },
          ],
        },
      ],
    };
    const big = buildViewModel({
      sources: [parseViewSource("big.json", JSON.stringify(dump))],
      decodeToken: (id) => `t${id}`,
    });
    const file = join(artifacts, "relax-view-64k.html");
    writeFileSync(file, renderPage(big));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href);
    // Measured in the page: from the navigation to the first frame painted after the strip is in the DOM.
    const opened = await page.evaluate(
      async (hash) => {
        const started = performance.now();
        location.hash = hash;
        while (document.querySelector("#strip .tok") === null)
          await new Promise((next) => setTimeout(next, 0));
        await new Promise((next) => requestAnimationFrame(() => setTimeout(next, 0)));
        return performance.now() - started;
      },
      `#/context/${encodeURIComponent(big.contexts[0]!.id)}`,
    );
    expect(opened).toBeLessThan(1000);
    const rendered = await page.locator("#strip .tok").count();
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(3000);
    // Scroll to the end: the last token is rendered, the strip keeps its height (no layout shift).
    const height = await page.locator("#strip").evaluate((element) => element.getBoundingClientRect().height);
    await page.locator("#strip").evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await page.waitForSelector(`#strip .tok[data-i="${n - 1}"]`);
    expect(await page.locator(`#strip .tok[data-i="${n - 1}"]`).getAttribute("class")).toContain("abort");
    expect(await page.locator("#strip").evaluate((element) => element.getBoundingClientRect().height)).toBe(
      height,
    );
    await page.close();
  }, 60_000);
});
