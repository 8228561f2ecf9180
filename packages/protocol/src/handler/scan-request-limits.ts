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
  text: string;
  protocol: Protocol;
  limits: RequestLimits;
  maxDepth: number;
  frames: Frame[];
  /** Index in `frames` of the `tools` array, or -1 when outside it. */
  toolsAt: number;
  contentParts: number;
  toolNodes: number;
  chars: number;
}

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
  scanSlice(newScanState(text, protocol, limits, maxDepth), 0, Number.POSITIVE_INFINITY);
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
  const state = newScanState(text, protocol, limits, maxDepth);
  for (let i = 0; i >= 0 && i < text.length; ) {
    i = scanSlice(state, i, i + SCAN_SLICE_CHARS);
    if (i >= 0 && i < text.length) await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

function newScanState(text: string, protocol: Protocol, limits: RequestLimits, maxDepth: number): ScanState {
  return {
    text,
    protocol,
    limits,
    maxDepth,
    frames: [],
    toolsAt: -1,
    contentParts: 0,
    toolNodes: 0,
    chars: 0,
  };
}

/**
 * Scans the tokens that start before `stop` (a token is always read whole) and returns where to go on,
 * or -1 when the scan is over (the end, or text it does not understand).
 */
function scanSlice(state: ScanState, from: number, stop: number): number {
  const { text } = state;
  const n = text.length;
  let i = from;
  while (i < n) {
    if (i >= stop) return i;
    const code = text.charCodeAt(i);
    if (code === 32 || code === 10 || code === 13 || code === 9 || code === 58 /* : */) {
      i++;
    } else if (code === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return -1;
      onString(state, i, end);
      i = end + 1;
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (!openContainer(state, code === 91)) return -1;
      i++;
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      const closed = state.frames.pop();
      if (closed === undefined) return -1;
      if (state.frames.length === state.toolsAt) state.toolsAt = -1;
      i++;
    } else if (code === 44 /* , */) {
      const top = state.frames.at(-1);
      if (top === undefined) return -1;
      if (!top.isArray) top.expectKey = true;
      i++;
    } else {
      // A number, true, false or null: up to the next delimiter.
      if (!onValue(state)) return -1;
      i = scalarEnd(text, i);
    }
  }
  return -1;
}

/** The index of the `"` closing the string that opens at `start`, or -1 when it is not closed. */
function stringEnd(text: string, start: number): number {
  let at = text.indexOf('"', start + 1);
  while (at > 0) {
    let backslashes = 0;
    for (let j = at - 1; j > start && text.charCodeAt(j) === 92; j--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** The index just past the scalar starting at `start`. */
function scalarEnd(text: string, start: number): number {
  let at = start + 1;
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

/** A key (recorded on its object) or a string value (counted). */
function onString(state: ScanState, start: number, end: number): void {
  const top = state.frames.at(-1);
  if (top !== undefined && !top.isArray && top.expectKey) {
    const raw = state.text.slice(start + 1, end);
    top.key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
    top.expectKey = false;
    top.count++;
    return;
  }
  if (!onValue(state)) return;
  if (top !== undefined && !top.isArray && PAYLOAD_KEYS.has(top.key)) return;
  state.chars += end - start - 1;
  if (state.chars > state.limits.maxChars) {
    throw limitError(
      state,
      pathTo(state),
      `the request's strings hold more than ${state.limits.maxChars} characters in all`,
      "--max-request-chars",
    );
  }
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
