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
        { label: "contexts", numeric: true },
        { label: "weight versions" },
        { label: "dropped" },
      ],
      stepSessions.map((session) => ({
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
          session.contextIds.map((id, i) => link(route("context", id), `#${i}`)).join(" "),
          esc(session.weightVersions.join(", ")),
          esc(session.dropReason ?? ""),
        ],
        keys: [
          session.sessionId,
          session.groupIndex,
          session.slot,
          session.reward,
          session.advantage,
          session.turnCount,
          Object.keys(session.transitions).join(","),
          session.contextIds.length,
          session.weightVersions.join(","),
          session.dropReason ?? "",
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
  return `<h1>${esc(model.title)}</h1>${steps.join("")}`;
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
    return `${header}<p class="note">This input has no forest section (a rows file or an older dump).</p>`;
  const tree = `<h2>forest <small><span id="observation-count">${forest.observationCount}</span> observation · <span id="response-count">${forest.responseCount}</span> response nodes</small></h2>
    <ul role="tree" class="tree" aria-label="session forest">${forest.nodes.map((node) => nodeHtml(node)).join("")}</ul>`;
  const turns = table(
    "turns",
    [
      { label: "turn", numeric: true },
      { label: "request class" },
      { label: "linear" },
      { label: "status" },
      { label: "matched / request messages" },
      { label: "prompt tokens", numeric: true },
      { label: "edits" },
    ],
    forest.turns.map((turn) => ({
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
  const diffLinks =
    forest.diffs.length > 0
      ? `<h2>forks</h2><ul>${forest.diffs.map((d) => `<li>${link(route("diff", d.id), `${short(d.left.stateHash)} vs ${short(d.right.stateHash)}`)} — first difference: ${esc(d.firstDifferentField ?? "none (prefix)")}</li>`).join("")}</ul>`
      : "";
  return `${header}${tree}<h2>requests</h2>${turns}${diffLinks}`;
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
    <div><dt>weight versions</dt><dd>${versions.map((v, i) => `<span class="wv wv${i % 6} legend">${esc(v)}</span>`).join(" ") || "—"}</dd></div></dl>
    <div class="legend-row"><span class="tok prompt">prompt</span> <span class="tok delta">observation delta</span> <span class="tok gen">generated (loss_mask 1)</span>
    <span class="tok turn-start">turn boundary</span> <span class="tok abort">abort</span>
    <label><input type="checkbox" id="shade"> shade generated tokens by rollout probability</label></div>
    <div id="token-info" class="info" aria-live="polite">hover or select a token (←/→ move, ↑/↓ line, [ ] turn)</div>
    <div id="strip" class="strip" tabindex="0" role="listbox" aria-label="token strip"></div>
    <h2>turns</h2>${turns}`;
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
