import { CanonicalizationError, formatFieldPath } from "@relax/chat";
import { ProtocolError } from "../errors/protocol-error";
import type { Protocol } from "../shared/protocol";

/**
 * The per-request work bounds the gateway checks while scanning a body's JSON text, before it is parsed,
 * validated, rendered or tokenised: one pass that stops at the first limit crossed, so an over-limit
 * request costs the event loop a fraction of what it would cost to parse, and nothing proportional to
 * its size runs after that point.
 */
export interface RequestLimits {
  /** Most items in the conversation list (`messages`; `input` for Responses) (`--max-request-messages`). */
  maxMessages: number;
  /** Most content parts in all: elements of every `content` array, and of Anthropic's `system` (`--max-request-content-parts`). */
  maxContentParts: number;
  /** Most JSON values (objects, arrays, strings, numbers, …) inside `tools`, all tools together (`--max-tool-schema-nodes`). */
  maxToolSchemaNodes: number;
  /**
   * Most characters of string values, as written in the body (escapes count as written), all strings
   * together; image payloads (the values of `url`, `image_url`, `data` and `file_data`) are not
   * counted (`--max-request-chars`).
   */
  maxChars: number;
}

/**
 * The defaults of {@link RequestLimits}, each far above what a real agent sends (a long Claude Code or
 * Codex session holds hundreds to a few thousand messages, its ~20 tool schemas ~1–3k values, a
 * 128k-token context ~0.5 MiB of text) and low enough that a request at the limit is answered in seconds:
 * 10,000 messages, 20,000 content parts, 20,000 tool schema values, 4 Mi characters (~1M tokens of
 * English text).
 */
export const DEFAULT_REQUEST_LIMITS: Readonly<RequestLimits> = Object.freeze({
  maxMessages: 10_000,
  maxContentParts: 20_000,
  maxToolSchemaNodes: 20_000,
  maxChars: 4 * 1024 * 1024,
});

/** How many leading path segments an error names before `…`. */
const PATH_SEGMENTS_SHOWN = 12;

/** Keys whose string values are image or file payloads, not text: not counted by `maxChars`. */
const PAYLOAD_KEYS = new Set(["url", "image_url", "data", "file_data"]);

/** What a container is to the limits. */
enum Role {
  None = 0,
  Messages = 1,
  Content = 2,
  Tools = 3,
}

interface Frame {
  isArray: boolean;
  /** Elements (array) or keys (object) seen so far. */
  count: number;
  /** The object's key being read or last read. */
  key: string;
  /** The object is waiting for a key (after `{` or `,`). */
  expectKey: boolean;
  role: Role;
}

interface ScanState {
  protocol: Protocol;
  limits: RequestLimits;
  maxDepth: number;
  frames: Frame[];
  /** Index in `frames` of the `tools` array, or -1 when outside it. */
  toolsAt: number;
  contentParts: number;
  toolNodes: number;
  chars: number;
  /** A token the last piece ended inside of: a string, a scalar (number, true, false, null), or none. */
  pending: Pending;
  /** Inside a pending string: the next character is escaped (the piece ended in an odd backslash run). */
  escaped: boolean;
  /** Inside a pending key: its raw text so far (at most {@link MAX_KEY_CHARS}). */
  keyRaw: string;
  /** Inside a pending string value: whether its characters count against `maxChars`. */
  counted: boolean;
  /** The scan is over: text it does not understand (left to `JSON.parse`), or a verdict thrown. */
  over: boolean;
}

enum Pending {
  None = 0,
  Key = 1,
  Value = 2,
  Scalar = 3,
}

/** Characters of a key kept for the limits and error paths; the keys they look for are short. */
const MAX_KEY_CHARS = 1024;

/**
 * Scans a request body's JSON text once, before it is parsed, and throws at the first limit it crosses:
 * containers nested deeper than `maxDepth` (the body is level 1), or any of {@link RequestLimits}.
 * Strings are skipped with `indexOf`, so the scan costs about the structure of the body, not its text.
 * Text that is not valid JSON is left to `JSON.parse` to report: the scan stops at the first byte it
 * does not expect, without a verdict.
 *
 * @throws CanonicalizationError (the deep value's path, e.g. `tools[0].function.parameters.properties.a…`)
 *   for a value nested deeper than `maxDepth`.
 * @throws ProtocolError 400 `request_limit_exceeded` naming the field path where the limit was crossed
 *   and the flag that raises it; `param` is the top-level field.
 */
export function scanRequestLimits(
  text: string,
  protocol: Protocol,
  limits: RequestLimits,
  maxDepth: number,
): void {
  new RequestLimitScan(protocol, limits, maxDepth).push(text);
}

/** Characters of a large body {@link scanRequestLimitsYielding} scans between two yields. */
export const SCAN_SLICE_CHARS = 65_536;

/**
 * {@link scanRequestLimits} for a large body, giving the event loop back (a `setTimeout(0)`) after each
 * {@link SCAN_SLICE_CHARS} characters, so that a multi-MiB body (a denial-of-service attempt or a
 * legitimate large request) never holds the loop for more than a slice (≈ 1–2 ms) while other
 * requests wait. Same verdict, same errors.
 */
export async function scanRequestLimitsYielding(
  text: string,
  protocol: Protocol,
  limits: RequestLimits,
  maxDepth: number,
): Promise<void> {
  const scan = new RequestLimitScan(protocol, limits, maxDepth);
  for (let at = 0; at < text.length && !scan.over; at += SCAN_SLICE_CHARS) {
    if (at > 0) await new Promise((resolve) => setTimeout(resolve, 0));
    scan.push(text.slice(at, at + SCAN_SLICE_CHARS));
  }
}

/**
 * {@link scanRequestLimits} over a body that arrives in pieces (any cut: inside a string, an escape, a
 * number or a key): `push` each piece of the text in order; the verdict is the one the whole text gets,
 * thrown by the `push` of the piece where the limit is crossed, so a body can be refused before the
 * rest of it is read or decoded. One difference: a string is counted against `maxChars` as it is read,
 * so an over-long string is refused even when the body breaks off before it closes (the whole-text scan
 * leaves an unclosed string to `JSON.parse`).
 */
export class RequestLimitScan {
  readonly #state: ScanState;

  constructor(protocol: Protocol, limits: RequestLimits, maxDepth: number) {
    this.#state = {
      protocol,
      limits,
      maxDepth,
      frames: [],
      toolsAt: -1,
      contentParts: 0,
      toolNodes: 0,
      chars: 0,
      pending: Pending.None,
      escaped: false,
      keyRaw: "",
      counted: false,
      over: false,
    };
  }

  /** Whether the scan is over (a verdict thrown, or text it leaves to `JSON.parse`): later pushes do nothing. */
  get over(): boolean {
    return this.#state.over;
  }

  /**
   * Scans the next piece of the body's text.
   *
   * @throws the errors of {@link scanRequestLimits}, at the first limit crossed (the scan is then over).
   */
  push(piece: string): void {
    const state = this.#state;
    if (state.over) return;
    try {
      if (!scanPiece(state, piece)) state.over = true;
    } catch (error) {
      state.over = true;
      throw error;
    }
  }
}

/** Scans one piece of the text; `false` when the scan is over (text it does not understand). */
function scanPiece(state: ScanState, text: string): boolean {
  const n = text.length;
  let i = continuePending(state, text);
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 10 || code === 13 || code === 9 || code === 58 /* : */) {
      i++;
    } else if (code === 34 /* " */) {
      if (!beginString(state)) return false;
      i = readString(state, text, i + 1);
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (!openContainer(state, code === 91)) return false;
      i++;
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      const closed = state.frames.pop();
      if (closed === undefined) return false;
      if (state.frames.length === state.toolsAt) state.toolsAt = -1;
      i++;
    } else if (code === 44 /* , */) {
      const top = state.frames.at(-1);
      if (top === undefined) return false;
      if (!top.isArray) top.expectKey = true;
      i++;
    } else {
      // A number, true, false or null: up to the next delimiter (maybe in the next piece).
      if (!onValue(state)) return false;
      i = scalarEnd(text, i + 1);
      if (i === n) state.pending = Pending.Scalar;
    }
  }
  return true;
}

/** Where the token the previous piece ended inside of ends in `text` (`text.length`: not yet). */
function continuePending(state: ScanState, text: string): number {
  if (state.pending === Pending.None) return 0;
  if (state.pending === Pending.Scalar) {
    const end = scalarEnd(text, 0);
    if (end < text.length) state.pending = Pending.None;
    return end;
  }
  return readString(state, text, 0);
}

/**
 * Starts a string token (the opening quote read): a key of the current object, or a value (counted as
 * one; its characters count against `maxChars` unless it is an image payload).
 */
function beginString(state: ScanState): boolean {
  const top = state.frames.at(-1);
  state.escaped = false;
  if (top !== undefined && !top.isArray && top.expectKey) {
    state.pending = Pending.Key;
    state.keyRaw = "";
    return true;
  }
  if (!onValue(state)) return false;
  state.pending = Pending.Value;
  state.counted = !(top !== undefined && !top.isArray && PAYLOAD_KEYS.has(top.key));
  return true;
}

/**
 * Reads the pending string from `from` in `text`: up to its closing quote (the token ends; the index
 * after it is returned) or to the end of the piece (`text.length`; the string goes on in the next piece).
 * Value characters are counted against `maxChars` as they are read.
 */
function readString(state: ScanState, text: string, from: number): number {
  const n = text.length;
  if (from >= n) return n;
  const begin = state.escaped ? from + 1 : from;
  state.escaped = false;
  const end = closingQuote(text, begin);
  const stop = end < 0 ? n : end;
  if (state.pending === Pending.Key) {
    if (state.keyRaw.length < MAX_KEY_CHARS)
      state.keyRaw += text.slice(from, Math.min(stop, from + MAX_KEY_CHARS));
  } else if (state.counted) {
    state.chars += stop - from;
    if (state.chars > state.limits.maxChars) {
      throw limitError(
        state,
        pathTo(state),
        `the request's strings hold more than ${state.limits.maxChars} characters in all`,
        "--max-request-chars",
      );
    }
  }
  if (end < 0) {
    let backslashes = 0;
    for (let j = n - 1; j >= begin && text.charCodeAt(j) === 92; j--) backslashes++;
    state.escaped = backslashes % 2 === 1;
    return n;
  }
  if (state.pending === Pending.Key) endKey(state);
  state.pending = Pending.None;
  return end + 1;
}

/** The index of the first unescaped `"` at or after `begin` (no escape pending before it), or -1. */
function closingQuote(text: string, begin: number): number {
  let at = text.indexOf('"', begin);
  while (at >= 0) {
    let backslashes = 0;
    for (let j = at - 1; j >= begin && text.charCodeAt(j) === 92; j--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** Records the key just read on its object. */
function endKey(state: ScanState): void {
  const top = state.frames.at(-1)!;
  const raw = state.keyRaw;
  let key = raw;
  if (raw.includes("\\")) {
    try {
      key = JSON.parse(`"${raw}"`) as string;
    } catch {
      key = raw;
    }
  }
  top.key = key;
  top.expectKey = false;
  top.count++;
  state.keyRaw = "";
}

/** The index of the first delimiter at or after `from` (`text.length` when none). */
function scalarEnd(text: string, from: number): number {
  let at = from;
  for (; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (
      code === 44 ||
      code === 93 ||
      code === 125 ||
      code === 32 ||
      code === 10 ||
      code === 13 ||
      code === 9
    ) {
      break;
    }
  }
  return at;
}

/**
 * Counts a value starting in the current container against the limits; `false` when the text is not
 * JSON the scan understands (a value where a key belongs).
 */
function onValue(state: ScanState): boolean {
  const top = state.frames.at(-1);
  if (top === undefined) return true;
  if (top.isArray) {
    top.count++;
    countElement(state, top);
  } else if (top.expectKey) {
    return false;
  }
  if (state.toolsAt >= 0) countToolNode(state);
  return true;
}

/** Checks the element just counted in array `top` against the message and content-part limits. */
function countElement(state: ScanState, top: Frame): void {
  const { limits } = state;
  if (top.role === Role.Messages && top.count > limits.maxMessages) {
    throw limitError(
      state,
      pathTo(state),
      `a request holds at most ${limits.maxMessages} ${state.protocol === "responses" ? "input items" : "messages"}`,
      "--max-request-messages",
    );
  }
  if (top.role === Role.Content && ++state.contentParts > limits.maxContentParts) {
    throw limitError(
      state,
      pathTo(state),
      `a request holds at most ${limits.maxContentParts} content parts in all`,
      "--max-request-content-parts",
    );
  }
}

function countToolNode(state: ScanState): void {
  if (++state.toolNodes <= state.limits.maxToolSchemaNodes) return;
  throw limitError(
    state,
    pathTo(state),
    `the tool definitions hold at most ${state.limits.maxToolSchemaNodes} JSON values in all`,
    "--max-tool-schema-nodes",
  );
}

/** Opens an object or array: counts it as a value, checks the depth, gives it its role. */
function openContainer(state: ScanState, isArray: boolean): boolean {
  const parent = state.frames.at(-1);
  if (parent !== undefined && !parent.isArray && parent.expectKey) return false;
  if (!onValue(state)) return false;
  const depth = state.frames.length + 1;
  if (depth > state.maxDepth) {
    const path = pathTo(state);
    const shown = formatFieldPath(path.slice(0, PATH_SEGMENTS_SHOWN));
    throw new CanonicalizationError({
      path: `${shown === "" ? "body" : shown}${path.length > PATH_SEGMENTS_SHOWN ? "…" : ""}`,
      reason: `nests arrays/objects deeper than ${state.maxDepth} levels (--max-json-depth)`,
    });
  }
  state.frames.push({
    isArray,
    count: 0,
    key: "",
    expectKey: !isArray,
    role: roleOf(state, parent, isArray),
  });
  return true;
}

/** The role of a container opened in `parent` (the current key or index of `parent` leads to it). */
function roleOf(state: ScanState, parent: Frame | undefined, isArray: boolean): Role {
  if (!isArray || parent === undefined || parent.isArray) return Role.None;
  const topLevel = state.frames.length === 1;
  if (topLevel) {
    if (parent.key === (state.protocol === "responses" ? "input" : "messages")) return Role.Messages;
    if (parent.key === "tools") {
      state.toolsAt = 1;
      return Role.Tools;
    }
    if (parent.key === "system" && state.protocol === "anthropic-messages") return Role.Content;
    return Role.None;
  }
  return parent.key === "content" ? Role.Content : Role.None;
}

/** The path of the value being read: the key or current index of every open container. */
function pathTo(state: ScanState): PropertyKey[] {
  const { frames } = state;
  const path: PropertyKey[] = [];
  for (let k = 0; k < frames.length; k++) {
    const frame = frames[k]!;
    path.push(frame.isArray ? frame.count - 1 : frame.key);
  }
  return path;
}

function limitError(state: ScanState, path: PropertyKey[], reason: string, flag: string): ProtocolError {
  const shown = formatFieldPath(path.slice(0, PATH_SEGMENTS_SHOWN));
  const suffix = path.length > PATH_SEGMENTS_SHOWN ? "…" : "";
  const param = typeof path[0] === "string" ? path[0] : null;
  return new ProtocolError({
    code: "request_limit_exceeded",
    param,
    message: `${shown === "" ? "body" : shown}${suffix}: ${reason} (${flag} raises it)`,
  });
}
