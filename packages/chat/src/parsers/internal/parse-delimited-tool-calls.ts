import type {
  GenerationFinishReason,
  ParsedToolCall,
  ToolCallFailure,
  ToolCallParseResult,
} from "../contract/tool-call-parser";
import { ContentBuilder } from "./content-builder";
import { MarkerFinder } from "./marker-finder";

/** A call read from one block, before it gets its `callIndex`. */
export type BlockCall = Omit<ParsedToolCall, "callIndex">;

/** What a format's block reader returns. */
export type BlockParse = { ok: true; calls: BlockCall[] } | { ok: false; reason: string };

/** Options of {@link parseDelimitedToolCalls}. */
export interface DelimitedFormat {
  /** Opens one call block, e.g. `<tool_call>`. */
  open: string;
  /** Closes one call block, e.g. `</tool_call>`. */
  close: string;
  /** Markers that open the section holding the calls (`<|tool_calls_section_begin|>`); removed from content. */
  sectionOpen?: readonly string[];
  /** Markers that close that section; removed from content, and they end an unclosed block. */
  sectionClose?: readonly string[];
  /** Reads the body between `open` and `close` (or the end of an unclosed block). */
  parseBlock(body: string): BlockParse;
}

/**
 * The shared scanner for formats whose calls sit between fixed open/close markers (`deepseekv3`,
 * `deepseekv31`, `kimi_k2`, `glm45`, `glm47`, `qwen3_coder`). It is linear in the text length.
 *
 * - A block runs from `open` to the next `close`; with no `close` before the next `open` (or section
 *   close), it runs to that boundary and is read anyway, because the payload is often complete.
 * - A block that runs into the end of a cut-off generation (`finishReason` `length`/`abort`) is
 *   `truncated_tool_call`, whatever it holds; a block that cannot be read is `malformed_tool_call`.
 *   Either way its raw text stays in the content and the other calls are kept.
 * - Section markers are removed from the content once at least one call block was found. A section that
 *   opens and holds no call block is itself reported (truncated when cut off, else malformed).
 */
export function parseDelimitedToolCalls(
  text: string,
  finishReason: GenerationFinishReason,
  format: DelimitedFormat,
): ToolCallParseResult {
  const { open, close, sectionOpen = [], sectionClose = [], parseBlock } = format;
  const finder = new MarkerFinder(text);
  const pieces: Array<string | null> = [];
  const calls: ParsedToolCall[] = [];
  const failures: ToolCallFailure[] = [];
  const boundaries = [open, ...sectionClose];
  let callIndex = 0;
  let emitted = 0;
  let pos = 0;
  while (true) {
    const start = finder.next(open, pos);
    if (start === -1) break;
    const bodyStart = start + open.length;
    const closeAt = finder.next(close, bodyStart);
    const boundary = finder.nextOf(boundaries, bodyStart)?.index ?? text.length;
    let end: number;
    let parse: BlockParse;
    if (closeAt !== -1 && closeAt < boundary) {
      end = closeAt + close.length;
      parse = parseBlock(text.slice(bodyStart, closeAt));
    } else {
      end = boundary;
      if (boundary === text.length && finishReason !== "stop") {
        failures.push({
          callIndex: callIndex++,
          kind: "truncated_tool_call",
          reason: `the generation was cut off (finish_reason=${finishReason}) before ${close}`,
          raw: text.slice(start, end),
        });
        pos = end;
        continue;
      }
      parse = parseBlock(text.slice(bodyStart, boundary));
      if (!parse.ok) parse = { ok: false, reason: `${parse.reason} (and no ${close})` };
    }
    if (parse.ok && parse.calls.length > 0) {
      pieces.push(text.slice(emitted, start), null);
      emitted = end;
      for (const call of parse.calls) calls.push({ callIndex: callIndex++, ...call });
    } else {
      failures.push({
        callIndex: callIndex++,
        kind: "malformed_tool_call",
        reason: parse.ok ? "the block holds no call" : parse.reason,
        raw: text.slice(start, end),
      });
    }
    pos = end;
  }
  pieces.push(text.slice(emitted));

  const builder = new ContentBuilder();
  const markers = [...sectionOpen, ...sectionClose];
  const removeMarkers = callIndex > 0 && markers.length > 0;
  for (const piece of pieces) {
    if (piece === null) builder.cut();
    else builder.text(removeMarkers ? removeAll(piece, markers) : piece);
  }
  if (callIndex === 0) {
    const section = finder.nextOf(sectionOpen, 0);
    if (section !== undefined) {
      const closing = finder.nextOf(sectionClose, section.index);
      const cutOff = closing === undefined && finishReason !== "stop";
      failures.push({
        callIndex: 0,
        kind: cutOff ? "truncated_tool_call" : "malformed_tool_call",
        reason: cutOff
          ? `the generation was cut off (finish_reason=${finishReason}) inside the tool-call section`
          : `the tool-call section holds no ${open} block`,
        raw: text.slice(
          section.index,
          closing === undefined ? text.length : closing.index + closing.needle.length,
        ),
      });
    }
  }
  return { content: builder.build(), calls, failures };
}

function removeAll(text: string, markers: readonly string[]): string {
  let out = text;
  for (const marker of markers) if (out.includes(marker)) out = out.split(marker).join("");
  return out;
}
