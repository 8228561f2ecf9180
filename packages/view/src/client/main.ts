import type { TreeNodeView, ViewMessage, ViewModel } from "../model/view-model";
import { esc, num, route, short, sortTable, table } from "./dom";
import { mountTokenStrip, type TokenStrip } from "./token-strip";

const model = JSON.parse(document.getElementById("relax-view-data")!.textContent!) as ViewModel;
const app = document.getElementById("app")!;
const sessions = new Map(model.sessions.map((session) => [session.id, session]));
const contexts = new Map(model.contexts.map((context) => [context.id, context]));
const diffs = new Map(
  model.sessions.flatMap((session) => (session.forest?.diffs ?? []).map((d) => [d.id, d])),
);
let strip: TokenStrip | undefined;
/** Where Escape goes from the current view. */
let up: string | undefined;

const link = (href: string, text: string, extra = "") => `<a href="${esc(href)}"${extra}>${esc(text)}</a>`;
const badge = (text: string, kind = "") => `<span class="badge ${esc(kind)}">${esc(text)}</span>`;

function messageHtml(message: ViewMessage, extra = ""): string {
  const parts = [
    `<div class="role">${esc(message.role)}${message.toolCallId ? ` · ${esc(message.toolCallId)}` : ""}</div>`,
  ];
  if (message.reasoning) parts.push(`<pre class="reasoning">${esc(message.reasoning)}</pre>`);
  if (message.text) parts.push(`<pre>${esc(message.text)}</pre>`);
  for (const call of message.toolCalls ?? []) parts.push(`<pre class="call">${esc(call)}</pre>`);
  return `<div class="msg ${esc(message.role)}${extra}">${parts.join("")}</div>`;
}

/** Drop reason of a session: its own, else its Group's when the Group was dropped or filtered. */
const groupReasons = new Map(
  model.steps.flatMap((step) =>
    step.groups.flatMap((group) =>
      group.outcome === "exported" ? [] : group.sessionIds.map((id) => [id, group.reason ?? group.outcome]),
    ),
  ),
);
const dropOf = (session: (typeof model.sessions)[number]) =>
  session.dropReason ?? groupReasons.get(session.id) ?? "";
const rewardKey = (reward: number | null) => (reward === null ? "none" : num(reward));

/** The run view's filters (kept across views): reward, drop reason, request class, weight version. */
const filters: { reward: string; drop: string; class: string; version: string } = {
  reward: "",
  drop: "",
  class: "",
  version: "",
};

function filterBar(): string {
  const distinct = (values: string[]) =>
    [...new Set(values)].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const select = (name: keyof typeof filters, label: string, options: [string, string][]) =>
    `<label>${esc(label)} <select id="filter-${name}" data-filter="${name}"><option value="">any</option>${options
      .map(
        ([value, text]) =>
          `<option value="${esc(value)}"${filters[name] === value ? " selected" : ""}>${esc(text)}</option>`,
      )
      .join("")}</select></label>`;
  const rewards = distinct(model.sessions.map((session) => rewardKey(session.reward)));
  const drops = distinct(model.sessions.map(dropOf).filter(Boolean));
  const classes = distinct(model.sessions.flatMap((session) => session.requestClasses));
  const versions = distinct(model.sessions.flatMap((session) => session.weightVersions));
  return `<form class="filters" id="filters" aria-label="filter sessions">${select(
    "reward",
    "reward",
    rewards.map((value) => [value, value === "none" ? "no reward" : `= ${value}`]),
  )}${select("drop", "drop reason", [["-", "not dropped"], ...drops.map((value): [string, string] => [value, value])])}${select(
    "class",
    "request class",
    classes.map((value) => [value, value]),
  )}${select(
    "version",
    "weight version",
    versions.map((value) => [value, value]),
  )}
    <output id="filter-count" aria-live="polite"></output></form>`;
}

/** Hides the session rows the filters exclude and says how many are shown. */
function applyFilters(): void {
  const rows = [...app.querySelectorAll<HTMLTableRowElement>('table[id^="sessions-"] tbody tr')];
  let shown = 0;
  for (const row of rows) {
    const data = row.dataset;
    const keep =
      (filters.reward === "" || data.reward === filters.reward) &&
      (filters.drop === "" || (filters.drop === "-" ? data.drop === "" : data.drop === filters.drop)) &&
      (filters.class === "" || (data.classes ?? "").split(" ").includes(filters.class)) &&
      (filters.version === "" || (data.versions ?? "").split(" ").includes(filters.version));
    row.hidden = !keep;
    if (keep) shown++;
  }
  const count = document.getElementById("filter-count");
  if (count) count.textContent = `${shown} of ${rows.length} sessions`;
}

function runView(): string {
  up = undefined;
  const steps = model.steps.map((step) => {
    const groups = table(
      `groups-${step.id}`,
      [
        { label: "Group", numeric: true },
        { label: "outcome" },
        { label: "reason" },
        { label: "sessions", numeric: true },
        { label: "contexts", numeric: true },
        { label: "mean reward", numeric: true },
      ],
      step.groups.map((group) => ({
        cells: [
          String(group.index),
          badge(group.outcome, group.outcome),
          esc(group.reason ?? ""),
          String(group.sessionIds.length),
          String(group.contextIds.length),
          num(group.rewardMean),
        ],
        keys: [
          group.index,
          group.outcome,
          group.reason ?? "",
          group.sessionIds.length,
          group.contextIds.length,
          group.rewardMean,
        ],
      })),
    );
    const stepSessions = step.groups.flatMap((group) => group.sessionIds.map((id) => sessions.get(id)!));
    const sessionTable = table(
      `sessions-${step.id}`,
      [
        { label: "session" },
        { label: "Group", numeric: true },
        { label: "slot", numeric: true },
        { label: "reward", numeric: true },
        { label: "advantage", numeric: true },
        { label: "turns", numeric: true },
        { label: "transitions" },
        { label: "request classes" },
        { label: "contexts", numeric: true },
        { label: "weight versions" },
        { label: "dropped" },
      ],
      stepSessions.map((session) => ({
        data: {
          reward: rewardKey(session.reward),
          drop: dropOf(session),
          classes: session.requestClasses.join(" "),
          versions: session.weightVersions.join(" "),
        },
        cells: [
          link(route("session", session.id), session.sessionId, ' class="session-link"'),
          String(session.groupIndex),
          String(session.slot),
          num(session.reward),
          num(session.advantage),
          String(session.turnCount),
          Object.entries(session.transitions)
            .map(([kind, count]) => badge(`${kind} ${count}`, kind))
            .join(" "),
          session.requestClasses.map((name) => badge(name, "class")).join(" "),
          session.contextIds.map((id, i) => link(route("context", id), `#${i}`)).join(" "),
          esc(session.weightVersions.join(", ")),
          esc(dropOf(session)),
        ],
        keys: [
          session.sessionId,
          session.groupIndex,
          session.slot,
          session.reward,
          session.advantage,
          session.turnCount,
          Object.keys(session.transitions).join(","),
          session.requestClasses.join(","),
          session.contextIds.length,
          session.weightVersions.join(","),
          dropOf(session),
        ],
      })),
    );
    const drops = Object.entries(step.dropsByReason);
    const counts = (kind: string) => step.groups.filter((group) => group.outcome === kind).length;
    return `<section class="step"><h2>step ${esc(step.id)} <small>${esc(step.mode)} · ${esc(step.source)}</small></h2>
      <dl class="facts"><div><dt>Groups</dt><dd>${step.groups.length}</dd></div><div><dt>exported</dt><dd>${counts("exported")}</dd></div>
      <div><dt>dropped</dt><dd>${counts("dropped")}</dd></div><div><dt>filtered</dt><dd>${counts("filtered")}</dd></div>
      <div><dt>sessions</dt><dd>${stepSessions.length}</dd></div><div><dt>weight versions</dt><dd>${esc(step.weightVersions.join(", ") || "—")}</dd></div></dl>
      ${drops.length > 0 ? `<h3>drops by reason</h3><ul class="drops">${drops.map(([reason, count]) => `<li>${esc(reason)}: <b>${count}</b></li>`).join("")}</ul>` : ""}
      <h3>Groups</h3>${groups}<h3>sessions</h3>${sessionTable}</section>`;
  });
  return `<h1>${esc(model.title)}</h1>${filterBar()}${steps.join("")}`;
}

function nodeHtml(node: TreeNodeView): string {
  const bits = [
    badge(node.kind, node.kind),
    `<span class="turn">turn ${node.turnId}</span>`,
    node.transition ? badge(node.transition, node.transition) : "",
    `<span class="count">${node.tokenCount} tokens</span>`,
    node.finishReason && node.finishReason !== "stop" ? badge(node.finishReason, "warn") : "",
    ...node.toleratedEdits.map(
      (edit) => `<span class="edit tolerated" title="tolerated drift edit">${esc(edit)}</span>`,
    ),
    node.resetFrom ? `<span class="link-reset">reset from ${esc(short(node.resetFrom))}</span>` : "",
    node.supersededBy ? `<span class="link-reset">superseded by ${esc(short(node.supersededBy))}</span>` : "",
    ...node.exportedAs.map((id, i) =>
      link(
        route("context", id),
        `exported as ${node.exportedNames[i] ?? "implicit"}`,
        ' class="badge exported"',
      ),
    ),
    node.notExportedReason
      ? `<span class="not-exported">not exported: ${esc(node.notExportedReason)}</span>`
      : "",
  ];
  const preview = node.messages
    .map(
      (message) =>
        `${message.role}: ${message.text || message.toolCalls?.join(" ") || message.reasoning || ""}`,
    )
    .join(" | ");
  return `<li role="treeitem" tabindex="-1" class="node ${node.kind}" data-hash="${esc(node.stateHash)}" aria-level="${node.depth + 1}" style="--depth:${node.depth}"${node.exportedAs[0] ? ` data-context="${esc(node.exportedAs[0])}"` : ""}>
    <div class="node-head"><code class="hash">${esc(short(node.stateHash))}</code> ${bits.filter(Boolean).join(" ")}</div>
    <div class="preview">${esc(preview.slice(0, 240))}</div></li>`;
}

/** Metadata keys that name the expected answer, in the order they are looked for. */
const ANSWER_KEYS = ["answer", "expected_answer", "ground_truth", "label", "target"];

function aboutSession(session: (typeof model.sessions)[number]): string {
  const metadata = session.metadata ?? {};
  const answerKey = ANSWER_KEYS.find((key) => key in metadata);
  const value = (item: unknown) => (typeof item === "string" ? item : JSON.stringify(item));
  const prompt = session.prompt
    ? session.prompt.map((message) => messageHtml(message)).join("")
    : session.promptText
      ? `<pre class="prompt-text">${esc(session.promptText)}</pre>`
      : '<p class="note">not in this input</p>';
  const meta = Object.entries(metadata);
  const details = Object.entries(session.rewardDetails ?? {});
  const log =
    session.logTail === undefined
      ? ""
      : `<h2>agent log <small>last lines</small></h2>${session.logTail === "" ? '<p class="note" id="session-log">empty</p>' : `<pre class="log" id="session-log">${esc(session.logTail)}</pre>`}`;
  return `<div class="pair about"><div><h2>prompt</h2><div id="session-prompt">${prompt}</div>${log}</div>
    <div><h2>agent output</h2><div id="session-output">${session.output ? messageHtml(session.output) : '<p class="note">not in this input</p>'}</div>
    <h2>reward</h2><dl class="facts" id="session-reward"><div><dt>reward</dt><dd>${num(session.reward)}</dd></div>
    ${session.rewardSource !== undefined ? `<div><dt>reward source</dt><dd id="reward-source">${esc(session.rewardSource)}</dd></div>` : ""}
    ${session.advantageSource !== undefined ? `<div><dt>advantage</dt><dd id="advantage-source">${num(session.advantage)} · ${esc(session.advantageSource)}</dd></div>` : ""}
    ${answerKey !== undefined ? `<div><dt>expected answer</dt><dd id="expected-answer">${esc(value(metadata[answerKey]))}</dd></div>` : ""}
    ${details.map(([name, score]) => `<div><dt>${esc(name)}</dt><dd>${num(score)}</dd></div>`).join("")}</dl>
    <h2>metadata</h2>${meta.length > 0 ? `<table id="session-metadata"><tbody>${meta.map(([key, item]) => `<tr><th>${esc(key)}</th><td><code>${esc(value(item))}</code></td></tr>`).join("")}</tbody></table>` : '<p class="note">none</p>'}</div></div>`;
}

function turnsTable(
  id: string,
  turns: NonNullable<(typeof model.sessions)[number]["forest"]>["turns"],
): string {
  return table(
    id,
    [
      { label: "turn", numeric: true },
      { label: "transition" },
      { label: "linear" },
      { label: "status" },
      { label: "matched / request messages" },
      { label: "prompt tokens", numeric: true },
      { label: "edits" },
    ],
    turns.map((turn) => ({
      cells: [
        String(turn.turnId),
        badge(turn.transition, turn.transition),
        turn.linear ? "yes" : "no",
        esc(turn.status + (turn.failure ? `: ${turn.failure}` : "")),
        `${turn.matchedMessages} / ${turn.requestMessages}`,
        String(turn.promptTokens),
        turn.edits
          .map(
            (edit) =>
              `<span class="edit ${turn.toleratedEdits.includes(edit) ? "tolerated" : "forked"}">${esc(edit)}</span>`,
          )
          .join(" "),
      ],
      keys: [
        turn.turnId,
        turn.transition,
        String(turn.linear),
        turn.status,
        turn.matchedMessages,
        turn.promptTokens,
        turn.edits.length,
      ],
    })),
  );
}

function sessionView(id: string): string {
  const session = sessions.get(id);
  if (session === undefined) return `<p class="error">no session ${esc(id)}</p>`;
  up = route("run");
  const header = `<nav class="crumbs">${link(route("run"), "run")} › step ${esc(session.step)} › Group ${session.groupIndex}</nav>
    <h1>session ${esc(session.sessionId)}</h1>
    <dl class="facts"><div><dt>reward</dt><dd>${num(session.reward)}</dd></div><div><dt>advantage</dt><dd>${num(session.advantage)}</dd></div>
    <div><dt>turns</dt><dd>${session.turnCount}</dd></div><div><dt>contexts</dt><dd>${session.contextIds.map((c, i) => link(route("context", c), `#${i}`)).join(" ") || "—"}</dd></div>
    ${session.dropReason ? `<div><dt>dropped</dt><dd>${esc(session.dropReason)}: ${esc(session.dropMessage ?? "")}</dd></div>` : ""}</dl>`;
  const forest = session.forest;
  if (forest === undefined)
    return `${header}${aboutSession(session)}<p class="note">This input has no forest section (a rows file or an older dump).</p>`;
  const tree = `<h2>forest <small><span id="observation-count">${forest.observationCount}</span> observation · <span id="response-count">${forest.responseCount}</span> response nodes</small></h2>
    <ul role="tree" class="tree" aria-label="session forest">${forest.nodes.map((node) => nodeHtml(node)).join("")}</ul>`;
  const turns = turnsTable("turns", forest.turns);
  const classes = `<p class="classes" id="request-classes">request classes: ${session.requestClasses
    .map((name) => badge(`${name} → ${name === "main" ? "train" : "record"}`, "class"))
    .join(" ")}</p>`;
  const sides = session.sideForests
    .map(
      (
        side,
      ) => `<section class="side-forest" data-class="${esc(side.requestClass)}"><h2>side requests: ${esc(side.requestClass)} <small>policy ${esc(side.policy)} (${side.policy === "train" ? "trained as side contexts" : "recorded, never trained"}) · ${side.forest.observationCount} observation · ${side.forest.responseCount} response nodes</small></h2>
    <ul role="tree" class="tree" aria-label="${esc(side.requestClass)} forest">${side.forest.nodes.map((node) => nodeHtml(node)).join("")}</ul>
    ${turnsTable(`turns-${side.requestClass}`, side.forest.turns)}</section>`,
    )
    .join("");
  const diffLinks =
    forest.diffs.length > 0
      ? `<h2>forks</h2><ul>${forest.diffs.map((d) => `<li>${link(route("diff", d.id), `${short(d.left.stateHash)} vs ${short(d.right.stateHash)}`)} — first difference: ${esc(d.firstDifferentField ?? "none (prefix)")}</li>`).join("")}</ul>`
      : "";
  return `${header}${aboutSession(session)}${classes}${tree}<h2>requests</h2>${turns}${diffLinks}${sides}`;
}

function contextView(id: string): string {
  const context = contexts.get(id);
  if (context === undefined) return `<p class="error">no context ${esc(id)}</p>`;
  up = route("session", context.sessionKey);
  const generated = context.lossMask.reduce((sum, bit) => sum + bit, 0);
  const versions = [...new Set(context.weightVersionSpans.map((span) => span.version))];
  const turns = context.turns
    .map(
      (
        turn,
        t,
      ) => `<details class="turn-panel" data-turn="${t}"><summary>turn ${turn.turnIndex} · ${badge(turn.transition, turn.transition)} · ${turn.generated[1] - turn.generated[0]} generated · ${esc(turn.finishReason)}
        ${turn.toleratedEdits.map((edit) => `<span class="edit tolerated">${esc(edit)}</span>`).join(" ")} <button type="button" class="jump" data-at="${turn.generated[0]}">show in strip</button></summary>
        <div class="pair"><div><h4>request (new messages)</h4>${(turn.request ?? []).map((m) => messageHtml(m)).join("") || '<p class="note">not in this input</p>'}</div>
        <div><h4>reply</h4>${turn.reply ? messageHtml(turn.reply) : '<p class="note">not in this input</p>'}</div></div></details>`,
    )
    .join("");
  return `<nav class="crumbs">${link(route("run"), "run")} › ${link(route("session", context.sessionKey), `session ${context.sessionId}`)} › context</nav>
    <h1>context ${esc(context.name ?? "implicit")} <small>${esc(short(context.stateHash))}</small></h1>
    <dl class="facts"><div><dt>status</dt><dd>${esc(context.status)}</dd></div><div><dt>tokens</dt><dd id="token-count">${context.tokens.length}</dd></div>
    <div><dt>prompt</dt><dd>${context.promptLength}</dd></div><div><dt>generated</dt><dd>${generated}</dd></div>
    <div><dt>reward</dt><dd>${num(context.reward)}</dd></div><div><dt>advantage</dt><dd>${num(context.advantage)}</dd></div>
    ${context.rewardSource !== undefined ? `<div><dt>reward source</dt><dd id="context-reward-source">${esc(context.rewardSource)}</dd></div>` : ""}
    ${context.advantageSource !== undefined ? `<div><dt>credit</dt><dd id="context-advantage-source">${esc(context.advantageSource)}</dd></div>` : ""}
    <div><dt>weight versions</dt><dd>${versions.map((v, i) => `<span class="wv wv${i % 6} legend">${esc(v)}</span>`).join(" ") || "—"}</dd></div></dl>
    <div class="legend-row"><span class="tok prompt">prompt</span> <span class="tok delta">observation delta</span> <span class="tok gen">generated (loss_mask 1)</span>
    <span class="tok turn-start">turn boundary</span> <span class="tok abort">abort</span>
    <label><input type="checkbox" id="shade"> shade generated tokens by rollout probability</label>
    ${generated > 0 ? `<button type="button" class="jump" id="jump-first-generated" data-at="${context.lossMask.indexOf(1)}">first generated token (g)</button>` : ""}</div>
    <div id="token-info" class="info" aria-live="polite">hover or select a token (←/→ move, ↑/↓ line, [ ] turn)</div>
    <div id="strip" class="strip" tabindex="0" role="listbox" aria-label="token strip"></div>
    ${imagesHtml(context)}<h2>turns</h2>${turns}`;
}

/** The row's images, each with its pad-token span and a jump into the strip. */
function imagesHtml(context: (typeof model.contexts)[number]): string {
  const images = context.images ?? [];
  if (images.length === 0) return "";
  return `<h2>images <small>${images.length} · shown where the row has image pads</small></h2><div class="row-images">${images
    .map(
      (image, k) =>
        `<figure class="row-image" data-image="${k + 1}">${
          image.src !== undefined
            ? `<img src="${esc(image.src)}" alt="image ${k + 1} of the row" width="${Math.max(96, Math.min(image.width ?? 320, 320))}">`
            : `<p class="note">not embedded: ${esc(image.url ?? "no source")}</p>`
        }<figcaption>image ${k + 1} · tokens ${image.start}–${image.end} (${image.end - image.start} pads)${
          image.width ? ` · ${image.width}×${image.height}` : ""
        } <button type="button" class="jump" data-at="${image.start}">show in strip</button></figcaption></figure>`,
    )
    .join("")}</div>`;
}

function diffView(id: string): string {
  const diff = diffs.get(id);
  if (diff === undefined) return `<p class="error">no diff ${esc(id)}</p>`;
  const session = model.sessions.find((s) => s.forest?.diffs.includes(diff));
  up = session ? route("session", session.id) : route("run");
  const column = (side: typeof diff.left) =>
    `<div class="side"><h3>${esc(short(side.stateHash))}</h3>${side.messages
      .map((m, i) => messageHtml(m, i === diff.firstDifferentMessage ? " differs" : ""))
      .join("")}</div>`;
  return `<nav class="crumbs">${link(route("run"), "run")} › ${session ? link(route("session", session.id), `session ${session.sessionId}`) : ""} › fork</nav>
    <h1>fork</h1><p class="first-diff">first differing message: <b>${diff.firstDifferentMessage < 0 ? "none (one history is a prefix of the other)" : diff.firstDifferentMessage}</b>${diff.firstDifferentField ? `, field <code>${esc(diff.firstDifferentField)}</code>` : ""}</p>
    <div class="diff">${column(diff.left)}${column(diff.right)}</div>`;
}

function show(): void {
  const [, kind, raw] = location.hash.match(/^#\/(session|context|diff)\/(.+)$/) ?? [];
  const id = raw === undefined ? "" : decodeURIComponent(raw);
  strip = undefined;
  app.innerHTML =
    kind === "session"
      ? sessionView(id)
      : kind === "context"
        ? contextView(id)
        : kind === "diff"
          ? diffView(id)
          : runView();
  document.body.dataset.view = kind ?? "run";
  if (kind === undefined) applyFilters();
  if (kind === "context") {
    const context = contexts.get(id);
    const viewport = document.getElementById("strip");
    const infoBar = document.getElementById("token-info")!;
    if (context && viewport)
      strip = mountTokenStrip(viewport, context, model.vocab, (html) => (infoBar.innerHTML = html));
  }
  const first = app.querySelector<HTMLElement>('[role="treeitem"]');
  if (first) first.tabIndex = 0;
  window.scrollTo(0, 0);
  app.querySelector<HTMLElement>("h1")?.setAttribute("tabindex", "-1");
  app.querySelector<HTMLElement>("h1")?.focus({ preventScroll: true });
}

app.addEventListener("click", (event) => {
  const target = event.target as HTMLElement;
  const th = target.closest("th");
  if (th?.closest("table.sortable")) sortTable(th as HTMLTableCellElement);
  const jump = target.closest<HTMLElement>("button.jump");
  if (jump && strip) {
    event.preventDefault();
    strip.select(Number(jump.dataset.at));
    document.getElementById("strip")!.focus();
  }
});
app.addEventListener("change", (event) => {
  const target = event.target as HTMLInputElement;
  if (target.dataset.filter !== undefined) {
    filters[target.dataset.filter as keyof typeof filters] = target.value;
    applyFilters();
  }
  if (target.id === "shade") document.getElementById("strip")?.classList.toggle("shade", target.checked);
});

app.addEventListener("keydown", (event) => {
  const target = event.target as HTMLElement;
  if (target.getAttribute("role") === "treeitem") {
    const items = [...app.querySelectorAll<HTMLElement>('[role="treeitem"]')];
    const at = items.indexOf(target);
    const next =
      event.key === "ArrowDown"
        ? items[at + 1]
        : event.key === "ArrowUp"
          ? items[at - 1]
          : event.key === "Home"
            ? items[0]
            : event.key === "End"
              ? items.at(-1)
              : undefined;
    if (next) {
      event.preventDefault();
      target.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    } else if (event.key === "Enter" && target.dataset.context) {
      location.hash = route("context", target.dataset.context);
    }
    return;
  }
  if (target.id === "strip" && strip) {
    const current = strip.selected();
    const boundaries = strip.boundaries();
    const moves: Record<string, () => number> = {
      ArrowRight: () => current + 1,
      ArrowLeft: () => current - 1,
      ArrowDown: () => strip!.verticalNeighbour(current, 1),
      ArrowUp: () => strip!.verticalNeighbour(current, -1),
      Home: () => 0,
      End: () => Number.MAX_SAFE_INTEGER,
      "]": () => boundaries.find((b) => b > current) ?? current,
      "[": () => boundaries.findLast((b) => b < current) ?? 0,
      g: () => Number(document.getElementById("jump-first-generated")?.dataset.at ?? current),
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      strip.select(current < 0 ? 0 : move());
    }
  }
});

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && up !== undefined) {
    event.preventDefault();
    location.hash = up;
  }
  if (event.key === "t" && !(event.target instanceof HTMLInputElement)) {
    const root = document.documentElement;
    root.dataset.theme = root.dataset.theme === "dark" ? "light" : "dark";
  }
});
window.addEventListener("hashchange", show);
show();
