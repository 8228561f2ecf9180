import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error a plain ESM script without types
import { renderSupportedHarnesses, repoRoot, updatedReadme } from "../scripts/supported-harnesses.mjs";

describe("README.md Supported harnesses table", () => {
  it("should be the table generated from harnesses.json and the recipes' pinned versions", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    expect(updatedReadme(readme, renderSupportedHarnesses())).toBe(readme);
  });

  it("should name every CLI the tests run with its exact pinned version", () => {
    const table: string = renderSupportedHarnesses();
    for (const pinned of [
      "`@anthropic-ai/claude-code@2.1.332`",
      "`@openai/codex@0.171.0`",
      "`@qwen-code/qwen-code@0.24.4`",
      "`opencode-ai@1.18.33`",
    ]) {
      expect(table).toContain(pinned);
    }
    expect(table).toMatch(/^\| opencode +\| `opencode-ai@1\.18\.33` +\| /m);
    expect(table).toContain("title ×1 → record");
  });
});
