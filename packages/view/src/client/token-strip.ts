import type { ContextView } from "../model/view-model";
import { esc, num } from "./dom";

/** Height of one strip line in CSS pixels (fixed, so the list can be virtualised without measuring). */
export const LINE_HEIGHT = 22;
/** Characters per strip line before it wraps to the next. */
const LINE_CHARS = 96;
/** Lines rendered above and below the visible window. */
const OVERSCAN = 8;

/** How a token's text is shown: control characters made visible, long pieces cut. */
export function visibleText(text: string): string {
  const shown = text.replace(/\n/g, "↵").replace(/\t/g, "→").replace(/\r/g, "␍");
  return shown.length > 48 ? `${shown.slice(0, 47)}…` : shown === "" ? "∅" : shown;
}

/** Per-token classification of a context, computed once when the strip opens. */
interface TokenInfo {
  /** Per token: 0 prompt, 1 observation delta, 2 generated. */
  part: Uint8Array;
  /** Per token: index of the turn (-1 in the first prompt). */
  turn: Int32Array;
  /** Per token: index into `versions` (-1 outside every span). */
  version: Int32Array;
  versions: string[];
  turnStarts: Set<number>;
  aborts: Set<number>;
  /** Line starts (token indexes), plus the end. */
  lines: number[];
  /** Per token: 1 + the index of the image whose pad tokens it is (0 elsewhere). */
  image: Uint16Array;
}

function analyse(context: ContextView, vocab: Record<string, string>): TokenInfo {
  const n = context.tokens.length;
  const part = new Uint8Array(n);
  const turn = new Int32Array(n).fill(-1);
  const version = new Int32Array(n).fill(-1);
  const versions: string[] = [];
  const turnStarts = new Set<number>();
  for (const [t, strip] of context.turns.entries()) {
    for (let i = strip.observation[0]; i < strip.observation[1]; i++) {
      part[i] = 1;
      turn[i] = t;
    }
    for (let i = strip.generated[0]; i < strip.generated[1]; i++) turn[i] = t;
    turnStarts.add(strip.observation[1] > strip.observation[0] ? strip.observation[0] : strip.generated[0]);
    turnStarts.add(strip.generated[0]);
  }
  for (let i = 0; i < n; i++) if (context.lossMask[i] === 1) part[i] = 2;
  for (const span of context.weightVersionSpans) {
    let v = versions.indexOf(span.version);
    if (v < 0) v = versions.push(span.version) - 1;
    for (let i = span.start; i < span.end && i < n; i++) version[i] = v;
  }
  const aborts = new Set(context.abortPoints.map((point) => point - 1));
  const image = new Uint16Array(n);
  for (const [k, placed] of (context.images ?? []).entries())
    for (let i = placed.start; i < placed.end && i < n; i++) image[i] = k + 1;
  // Width and newline of each distinct id, computed once (a long row repeats ids many times).
  const shape = new Map<number, { width: number; newline: boolean }>();
  const lines = [0];
  let chars = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && (turnStarts.has(i) || chars >= LINE_CHARS)) {
      lines.push(i);
      chars = 0;
    }
    const id = context.tokens[i]!;
    let known = shape.get(id);
    if (known === undefined) {
      const text = vocab[String(id)] ?? `#${id}`;
      known = { width: visibleText(text).length + 1, newline: text.includes("\n") };
      shape.set(id, known);
    }
    chars += known.width;
    if (known.newline && i + 1 < n) {
      lines.push(i + 1);
      chars = 0;
    }
  }
  if (lines.at(-1) !== n) lines.push(n);
  // A boundary can be added twice (newline before a turn start): keep line starts strictly increasing.
  const unique = lines.filter((start, i) => i === 0 || start > lines[i - 1]!);
  return { part, turn, version, versions, turnStarts, aborts, lines: unique, image };
}

/** The mounted strip: the selected token can be moved with {@link TokenStrip.select}. */
export interface TokenStrip {
  readonly lineCount: number;
  select(index: number): void;
  selected(): number;
  /** Line index of a token. */
  lineOf(index: number): number;
  /** The token one line below (`+1`) or above (`-1`) `index`, at the same position in its line where it can be. */
  verticalNeighbour(index: number, direction: 1 | -1): number;
  /** First token of each turn's observation delta and generation, sorted. */
  boundaries(): number[];
}

/**
 * Mounts the virtualised token strip of `context` into `viewport` (a fixed-height scroll box): only the
 * lines in view (plus {@link OVERSCAN}) are in the DOM, each absolutely positioned at `line × LINE_HEIGHT`,
 * so a 64k-token row opens at once and scrolling never shifts the layout. `onInfo` receives the text of the
 * hovered or selected token.
 */
export function mountTokenStrip(
  viewport: HTMLElement,
  context: ContextView,
  vocab: Record<string, string>,
  onInfo: (html: string) => void,
): TokenStrip {
  const info = analyse(context, vocab);
  const lineCount = info.lines.length - 1;
  const spacer = document.createElement("div");
  spacer.className = "strip-spacer";
  spacer.style.height = `${lineCount * LINE_HEIGHT}px`;
  viewport.replaceChildren(spacer);
  let selected = -1;
  let rendered = "";

  const tokenHtml = (i: number): string => {
    const id = context.tokens[i]!;
    const text = vocab[String(id)] ?? `#${id}`;
    const classes = ["tok", info.part[i] === 2 ? "gen" : info.part[i] === 1 ? "delta" : "prompt"];
    if (info.turnStarts.has(i)) classes.push("turn-start");
    if (info.version[i]! >= 0) classes.push(`wv wv${info.version[i]! % 6}`);
    if (info.aborts.has(i)) classes.push("abort");
    if (info.image[i]! > 0) classes.push("img");
    if (i === selected) classes.push("sel");
    const p = info.part[i] === 2 ? Math.exp(context.logprobs[i]!) : 0;
    return `<span class="${classes.join(" ")}" data-i="${i}" style="--p:${p.toFixed(3)}">${esc(visibleText(text))}</span>`;
  };

  const render = () => {
    const first = Math.max(0, Math.floor(viewport.scrollTop / LINE_HEIGHT) - OVERSCAN);
    const last = Math.min(
      lineCount,
      Math.ceil((viewport.scrollTop + viewport.clientHeight) / LINE_HEIGHT) + OVERSCAN,
    );
    const key = `${first}:${last}:${selected}`;
    if (key === rendered) return;
    rendered = key;
    let html = "";
    for (let line = first; line < last; line++) {
      const start = info.lines[line]!;
      const end = info.lines[line + 1]!;
      let tokens = "";
      for (let i = start; i < end; i++) tokens += tokenHtml(i);
      html += `<div class="line" style="top:${line * LINE_HEIGHT}px"><span class="ln">${start}</span>${tokens}</div>`;
    }
    spacer.innerHTML = html;
  };

  const describe = (i: number): string => {
    const id = context.tokens[i]!;
    const turn = info.turn[i]!;
    const version = info.version[i]!;
    const part =
      info.part[i] === 2 ? "generated (loss_mask 1)" : info.part[i] === 1 ? "observation delta" : "prompt";
    const fields = [
      `<b>#${i}</b>`,
      `id ${id}`,
      `<code>${esc(JSON.stringify(vocab[String(id)] ?? `#${id}`))}</code>`,
      part,
      info.part[i] === 2
        ? `logprob ${num(context.logprobs[i]!, 4)} (p ${num(Math.exp(context.logprobs[i]!), 3)})`
        : "",
      turn >= 0 ? `turn ${context.turns[turn]!.turnIndex}` : "",
      version >= 0 ? `weight ${esc(info.versions[version])}` : "",
      info.aborts.has(i) ? "<b>aborted here</b>" : "",
      info.image[i]! > 0 ? `image ${info.image[i]} pad` : "",
    ];
    return fields.filter((field) => field !== "").join(" · ");
  };

  const lineOf = (index: number): number => {
    let lo = 0;
    let hi = lineCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (info.lines[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };

  viewport.addEventListener("scroll", render, { passive: true });
  viewport.addEventListener("mouseover", (event) => {
    const target = (event.target as HTMLElement).closest<HTMLElement>(".tok");
    if (target) onInfo(describe(Number(target.dataset.i)));
  });
  viewport.addEventListener("click", (event) => {
    const target = (event.target as HTMLElement).closest<HTMLElement>(".tok");
    if (target) strip.select(Number(target.dataset.i));
  });

  const strip: TokenStrip = {
    lineCount,
    select(index: number) {
      if (context.tokens.length === 0) return;
      selected = Math.max(0, Math.min(context.tokens.length - 1, index));
      const top = lineOf(selected) * LINE_HEIGHT;
      if (top < viewport.scrollTop) viewport.scrollTop = top;
      else if (top + LINE_HEIGHT > viewport.scrollTop + viewport.clientHeight)
        viewport.scrollTop = top + LINE_HEIGHT - viewport.clientHeight;
      rendered = "";
      render();
      viewport.setAttribute("aria-activedescendant", "");
      onInfo(describe(selected));
    },
    selected: () => selected,
    lineOf,
    verticalNeighbour(index: number, direction: 1 | -1) {
      const line = lineOf(Math.max(0, index));
      const target = Math.max(0, Math.min(lineCount - 1, line + direction));
      const column = Math.max(0, index) - info.lines[line]!;
      return Math.min(info.lines[target]! + column, info.lines[target + 1]! - 1);
    },
    boundaries: () => [...info.turnStarts].sort((a, b) => a - b),
  };
  render();
  return strip;
}
