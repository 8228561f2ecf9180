import { STATUS_TABLE, type StatusRow } from "./status-table";

/** The generated sections of the docs: which file holds each, relative to the repository root. */
export const STATUS_TABLE_SECTIONS = {
  agent: "docs/contract.md",
  control: "docs/trainer-api.md",
} as const;

/** A generated section's name: `agent` (docs/contract.md) or `control` (docs/trainer-api.md). */
export type StatusTableSection = keyof typeof STATUS_TABLE_SECTIONS;

/**
 * The agent-facing error table of docs/contract.md, rendered from `STATUS_TABLE` (its rows with an
 * `agent` part, in table order): condition, status, OpenAI `type` / `code` (one name when they are the
 * same; `(retryable)` when a retry can help), and the Anthropic Messages `type`.
 */
export function renderAgentStatusTable(): string {
  const rows = rowsOf("agent").map(([code, row]) => {
    const { agent } = row as Required<StatusRow>;
    const names = agent.type === code ? `\`${code}\`` : `\`${agent.type}\` / \`${code}\``;
    return [
      agent.when,
      String(row.status),
      `${names}${row.retryable ? " (retryable)" : ""}`,
      `\`${agent.anthropicType}\``,
    ];
  });
  return renderMarkdownTable(["condition", "status", "`type` / `code`", "Messages `type`"], rows);
}

/** The control API's error table of docs/trainer-api.md, rendered from `STATUS_TABLE` (rows with a `control` part). */
export function renderControlStatusTable(): string {
  const rows = rowsOf("control").map(([code, row]) => [
    String(row.status),
    `\`${code}\``,
    (row as Required<StatusRow>).control.when,
  ]);
  return renderMarkdownTable(["status", "code", "when"], rows);
}

/** The rendering of a section. */
export function renderStatusTableSection(section: StatusTableSection): string {
  return section === "agent" ? renderAgentStatusTable() : renderControlStatusTable();
}

/** The comment lines a generated section sits between. */
export function sectionMarkers(section: StatusTableSection): { begin: string; end: string } {
  return {
    begin: `<!-- status-table:${section}: generated from STATUS_TABLE (packages/protocol/src/errors/status-table.ts); RELAX_WRITE_DOCS=1 pnpm exec vitest run src/errors/status-table-docs.test.ts in packages/protocol rewrites it -->`,
    end: `<!-- /status-table:${section} -->`,
  };
}

/**
 * The text between a section's markers in `document` (without the marker lines), or `undefined` when
 * the markers are missing.
 */
export function readStatusTableSection(document: string, section: StatusTableSection): string | undefined {
  const { begin, end } = sectionMarkers(section);
  const from = document.indexOf(`${begin}\n`);
  const to = document.indexOf(`\n${end}`);
  if (from === -1 || to === -1 || to < from) return undefined;
  return document.slice(from + begin.length + 1, to);
}

/**
 * `document` with the section between its markers replaced by `content`.
 * @throws Error when the markers are missing.
 */
export function writeStatusTableSection(
  document: string,
  section: StatusTableSection,
  content: string,
): string {
  const current = readStatusTableSection(document, section);
  if (current === undefined) throw new Error(`no ${sectionMarkers(section).begin} … section`);
  const { begin } = sectionMarkers(section);
  const from = document.indexOf(`${begin}\n`) + begin.length + 1;
  return `${document.slice(0, from)}${content}${document.slice(from + current.length)}`;
}

/**
 * A GitHub markdown table with every column padded to its widest cell (as the formatter writes them);
 * a `|` inside a cell is escaped.
 */
export function renderMarkdownTable(header: string[], cells: string[][]): string {
  const rows = cells.map((row) => row.map((cell) => cell.replaceAll("|", "\\|")));
  const widths = header.map((cell, column) =>
    Math.max(3, cell.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

function rowsOf(part: "agent" | "control"): Array<[string, StatusRow]> {
  return (Object.entries(STATUS_TABLE) as Array<[string, StatusRow]>).filter(
    ([, row]) => row[part] !== undefined,
  );
}
