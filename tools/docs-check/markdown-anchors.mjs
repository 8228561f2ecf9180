/** GitHub's heading anchor: lower case, punctuation other than `-` and `_` removed, spaces to `-`. */
export function headingAnchor(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a Markdown text defines: its headings and its `<a id="…">` elements. */
export function markdownAnchors(markdown) {
  const text = withoutCodeBlocks(markdown);
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"/g)].map((match) => match[1]));
  for (const match of text.matchAll(/^#{1,6} (.+)$/gm)) anchors.add(headingAnchor(match[1]));
  return anchors;
}

/** The Markdown text with its fenced code blocks removed. */
export function withoutCodeBlocks(markdown) {
  return markdown.replace(/^\s*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\s*\1\s*$/gm, "");
}
