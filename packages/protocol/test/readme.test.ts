import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ANTHROPIC_MESSAGES_IGNORED_FIELDS } from "../src/anthropic-messages/convert-anthropic-messages-request";
import { CHAT_COMPLETIONS_IGNORED_FIELDS } from "../src/chat-completions/convert-chat-completions-request";
import { RESPONSES_IGNORED_FIELDS } from "../src/responses/convert-responses-request";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The README bullet of one protocol in "Ignored fields". */
function ignoredSection(label: string): string {
  const section = readme.split("### Ignored fields")[1]?.split("\n## ")[0] ?? "";
  const start = section.indexOf(`- **${label}**`);
  const ends = [section.indexOf("\n- **", start + 1), section.indexOf("\n\n", start)].filter((i) => i !== -1);
  return section.slice(start, Math.min(...ends));
}

describe("README", () => {
  it.each([
    ["Chat Completions", CHAT_COMPLETIONS_IGNORED_FIELDS],
    ["Responses", RESPONSES_IGNORED_FIELDS],
    ["Anthropic Messages", ANTHROPIC_MESSAGES_IGNORED_FIELDS],
  ])("should list exactly the %s fields the converter ignores", (label, fields) => {
    const listed = [...ignoredSection(label).matchAll(/`([a-z_]+)`/g)].map((match) => match[1]);
    expect(new Set(listed.filter((name) => name !== "chat_template_kwargs" && name !== "tools"))).toEqual(
      new Set(Object.keys(fields)),
    );
  });
});
