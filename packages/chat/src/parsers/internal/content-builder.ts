/**
 * Collects the text a tool-call parser leaves as assistant `content`: the text before, between and after
 * the parsed calls, plus the raw text of calls that failed to parse (they are never cut out).
 *
 * Joining rule (documented in docs/parsers.md): each stretch of text between two parsed calls is trimmed
 * of surrounding whitespace, empty stretches are dropped, and the rest are joined with `"\n"`. So
 * `"Let me check.\n<tool_call>…</tool_call>\nDone."` gives `"Let me check.\nDone."`, which is also
 * what the Qwen template renders before its first `<tool_call>`.
 */
export class ContentBuilder {
  private readonly parts: string[] = [];
  private current = "";

  /** Appends text that stays in the content. */
  text(value: string): void {
    this.current += value;
  }

  /** Marks the place of a parsed call: the text on either side becomes separate stretches. */
  cut(): void {
    this.parts.push(this.current);
    this.current = "";
  }

  /** The joined content (see the class comment); `""` when nothing but whitespace is left. */
  build(): string {
    return joinContentParts([...this.parts, this.current]);
  }
}

/** Trims each part, drops empty ones and joins the rest with `"\n"`. */
export function joinContentParts(parts: readonly string[]): string {
  const kept: string[] = [];
  for (const part of parts) {
    const trimmed = part.trim();
    if (trimmed !== "") kept.push(trimmed);
  }
  return kept.join("\n");
}
