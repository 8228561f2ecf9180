/** Small DOM helpers of the page's client script (no framework). */

const entities: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => entities[char]!);
}

/** A number for a table cell: 3 decimals, `—` when absent. */
export function num(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined ? "—" : Number(value.toFixed(digits)).toString();
}

/** A short form of a 64-hex state hash. */
export function short(hash: string): string {
  return hash.slice(0, 10);
}

/** The hash route of a view (`#/session/<id>`), ids URI-encoded. */
export function route(kind: "run" | "session" | "context" | "diff", id?: string): string {
  return id === undefined ? "#/" : `#/${kind}/${encodeURIComponent(id)}`;
}

/**
 * A sortable table: `columns` name the header and how to sort; `rows` hold the HTML of every cell and
 * the sort key of each, and optionally `data-*` attributes of the row (what the run view's filters read).
 * Clicking (or Enter on) a header sorts by it; clicking again reverses.
 */
export function table(
  id: string,
  columns: { label: string; numeric?: boolean }[],
  rows: { cells: string[]; keys: (string | number | null)[]; data?: Record<string, string> }[],
): string {
  const head = columns
    .map(
      (column, i) =>
        `<th aria-sort="none" data-col="${i}"${column.numeric ? ' data-numeric="1"' : ""}><button type="button">${esc(column.label)}</button></th>`,
    )
    .join("");
  const body = rows
    .map(
      (row) =>
        `<tr${Object.entries(row.data ?? {})
          .map(([name, value]) => ` data-${name}="${esc(value)}"`)
          .join("")}>${row.cells
          .map((cell, i) => {
            const key = row.keys[i];
            return `<td data-key="${esc(key ?? "")}"${columns[i]?.numeric ? ' class="n"' : ""}>${cell}</td>`;
          })
          .join("")}</tr>`,
    )
    .join("");
  return `<table class="sortable" id="${esc(id)}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** Sorts a {@link table} by the column of `th` (toggling direction). */
export function sortTable(th: HTMLTableCellElement): void {
  const tableElement = th.closest("table")!;
  const col = Number(th.dataset.col);
  const numeric = th.dataset.numeric === "1";
  const ascending = th.getAttribute("aria-sort") !== "ascending";
  for (const other of tableElement.querySelectorAll("th")) other.setAttribute("aria-sort", "none");
  th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  const body = tableElement.tBodies[0]!;
  const rows = [...body.rows];
  const keyOf = (row: HTMLTableRowElement) => row.cells[col]?.dataset.key ?? "";
  rows.sort((a, b) => {
    const x = keyOf(a);
    const y = keyOf(b);
    let order: number;
    if (numeric) {
      const nx = x === "" ? Number.NEGATIVE_INFINITY : Number(x);
      const ny = y === "" ? Number.NEGATIVE_INFINITY : Number(y);
      order = nx - ny;
    } else order = x.localeCompare(y, undefined, { numeric: true });
    return ascending ? order : -order;
  });
  body.append(...rows);
}
