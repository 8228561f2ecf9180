import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { STATUS_TABLE } from "./status-table";
import {
  readStatusTableSection,
  renderAgentStatusTable,
  renderControlStatusTable,
  renderMarkdownTable,
  renderStatusTableSection,
  STATUS_TABLE_SECTIONS,
  type StatusTableSection,
  sectionMarkers,
  writeStatusTableSection,
} from "./status-table-docs";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

describe("the docs' status tables", () => {
  // RELAX_WRITE_DOCS=1 rewrites the sections instead (then this test checks what it wrote).
  it.each(Object.keys(STATUS_TABLE_SECTIONS) as StatusTableSection[])(
    "should have the %s section of its doc equal to STATUS_TABLE",
    (section) => {
      const path = `${root}${STATUS_TABLE_SECTIONS[section]}`;
      const rendered = renderStatusTableSection(section);
      if (process.env.RELAX_WRITE_DOCS === "1") {
        writeFileSync(path, writeStatusTableSection(readFileSync(path, "utf8"), section, rendered));
      }
      const written = readStatusTableSection(readFileSync(path, "utf8"), section);
      expect(written, `${STATUS_TABLE_SECTIONS[section]} has no generated ${section} section`).toBeDefined();
      expect(written, `${STATUS_TABLE_SECTIONS[section]} drifted from STATUS_TABLE`).toBe(rendered);
    },
  );
});

describe("renderAgentStatusTable", () => {
  const table = renderAgentStatusTable();
  it("should have one row per agent-facing code, the 405 and 409 included", () => {
    const agentCodes = Object.entries(STATUS_TABLE).filter(([, row]) => "agent" in row);
    expect(table.split("\n")).toHaveLength(2 + agentCodes.length);
    expect(table).toMatch(
      /\| 405 +\| `invalid_request_error` \/ `method_not_allowed` +\| `invalid_request_error` +\|/,
    );
    expect(table).toMatch(/\| 409 +\| `invalid_request_error` \/ `state_conflict` +\|/);
    expect(table).toMatch(
      /\| 503 +\| `server_error` \/ `backend_unavailable` \(retryable\) +\| `api_error` +\|/,
    );
    expect(table).toMatch(/\| 499 +\| `client_disconnect` +\| `invalid_request_error` +\|/);
    expect(table).toMatch(
      /\| 413 +\| `invalid_request_error` \/ `request_too_large` +\| `request_too_large` +\|/,
    );
  });
});

describe("renderControlStatusTable", () => {
  it("should have one row per control code, with no agent-only code", () => {
    const table = renderControlStatusTable();
    const controlCodes = Object.entries(STATUS_TABLE).filter(([, row]) => "control" in row);
    expect(table.split("\n")).toHaveLength(2 + controlCodes.length);
    expect(table).toMatch(/^\| 409 +\| `step_out_of_order` +\|/m);
    expect(table).toMatch(/^\| 504 +\| `pause_timeout` +\|/m);
    expect(table).not.toContain("session_discarded");
  });
});

describe("renderMarkdownTable", () => {
  it("should pad every column to its widest cell and escape a |", () => {
    expect(renderMarkdownTable(["a", "long header"], [["x|y", "1"]])).toBe(
      ["| a    | long header |", "| ---- | ----------- |", "| x\\|y | 1           |"].join("\n"),
    );
  });
});

describe("readStatusTableSection / writeStatusTableSection", () => {
  const { begin, end } = sectionMarkers("agent");
  const doc = `intro\n${begin}\n| old |\n${end}\noutro\n`;
  it("should read and replace the text between the markers only", () => {
    expect(readStatusTableSection(doc, "agent")).toBe("| old |");
    expect(writeStatusTableSection(doc, "agent", "| new |\n| x |")).toBe(
      `intro\n${begin}\n| new |\n| x |\n${end}\noutro\n`,
    );
  });
  it("should report a document without the markers", () => {
    expect(readStatusTableSection("intro\n", "control")).toBeUndefined();
    expect(() => writeStatusTableSection("intro\n", "control", "x")).toThrow(/status-table:control/);
  });
});
