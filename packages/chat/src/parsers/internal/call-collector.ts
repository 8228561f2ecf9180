import type { ParsedToolCall, ToolCallFailure, ToolCallParseResult } from "../contract/tool-call-parser";
import { ContentBuilder } from "./content-builder";
import { readJsonCall } from "./read-json-call";
import type { JsonNode } from "./scan-json";

/**
 * Bookkeeping shared by the hand-written parsers (`llama3`, `mistral`, `pythonic`, `gpt-oss`): numbers
 * call blocks in text order, cuts parsed calls out of the content and keeps failed blocks in it.
 */
export class CallCollector {
  private readonly builder = new ContentBuilder();
  private readonly calls: ParsedToolCall[] = [];
  private readonly failures: ToolCallFailure[] = [];
  /** Everything before this offset has been handed to the content builder or cut out. */
  private emitted = 0;

  constructor(readonly text: string) {}

  /** Index the next call block gets. */
  get nextIndex(): number {
    return this.calls.length + this.failures.length;
  }

  /** Records calls read from `[start, end)`; that region leaves the content. */
  success(start: number, end: number, calls: ReadonlyArray<Omit<ParsedToolCall, "callIndex">>): void {
    this.cut(start, end);
    for (const call of calls) this.calls.push({ callIndex: this.nextIndex, ...call });
  }

  /** Records a failed block; its raw text `[start, end)` stays in the content. */
  failure(kind: ToolCallFailure["kind"], reason: string, start: number, end: number): void {
    this.failures.push({ callIndex: this.nextIndex, kind, reason, raw: this.text.slice(start, end) });
  }

  /** Removes `[start, end)` from the content without recording anything (separators, wrappers). */
  cut(start: number, end: number): void {
    if (start < this.emitted) return;
    this.builder.text(this.text.slice(this.emitted, start));
    this.builder.cut();
    this.emitted = end;
  }

  /** Extends the last cut over `[start, end)` when that is where the content currently stops. */
  swallow(start: number, end: number): void {
    if (this.emitted === start) this.emitted = end;
  }

  /**
   * Records the call(s) in a JSON node spanning `[start, end)`: one call object, or an array of them. In
   * an array, the well-formed items are kept and the others are reported with their own raw text (which
   * stays in the content); an array with no well-formed item stays in the content whole.
   */
  jsonCalls(node: JsonNode, start: number, end: number, argumentKeys?: readonly string[]): void {
    if (node.kind !== "array") {
      const read = readJsonCall(this.text, node, argumentKeys);
      if (read.ok) this.success(start, end, [{ name: read.name, arguments: read.arguments }]);
      else this.failure("malformed_tool_call", read.reason, start, end);
      return;
    }
    const reads = node.items.map((item) => ({ item, read: readJsonCall(this.text, item, argumentKeys) }));
    if (!reads.some(({ read }) => read.ok)) {
      for (const { item, read } of reads) {
        this.failure("malformed_tool_call", read.ok ? "" : read.reason, item.start, item.end);
      }
      if (reads.length === 0) this.failure("malformed_tool_call", "empty list of calls", start, end);
      return;
    }
    this.cut(start, end);
    for (const { item, read } of reads) {
      if (read.ok) this.calls.push({ callIndex: this.nextIndex, name: read.name, arguments: read.arguments });
      else {
        this.failure("malformed_tool_call", read.reason, item.start, item.end);
        this.builder.text(this.text.slice(item.start, item.end));
        this.builder.cut();
      }
    }
  }

  /** The parse result; the text after the last cut stays in the content. */
  finish(): ToolCallParseResult {
    this.builder.text(this.text.slice(this.emitted));
    return { content: this.builder.build(), calls: this.calls, failures: this.failures };
  }
}

/** First offset at or after `from` that is not JSON whitespace. */
export function skipWhitespace(text: string, from: number): number {
  let pos = from;
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
    else break;
  }
  return pos;
}
