import { describe, expect, it } from "vitest";
import { compareText, matchesRedaction, redactionPattern } from "./compare-text";
import { DEFAULT_REDACTION_MARKERS } from "./history-edit";

const pattern = redactionPattern(DEFAULT_REDACTION_MARKERS);

describe("matchesRedaction", () => {
  it.each([
    ["sk_test = 123", "sk_test = ***", true],
    ["a=1 b=2", "a=*** b=***", true],
    ["a=1 b=2", "a=***b=***", true], // the marker may cover the space too
    ["a=1 b=2", "a=***c=***", false],
    ["token abc", "token [REDACTED]", true],
    ["token ", "token ***", false],
    ["***", "***", true],
    ["abc", "abc", false],
    ["x secret y", "*** secret ***", true],
    ["secret", "****", true],
    ["ab", "a***b", false],
  ])("should decide %j → %j as %s", (original, redacted, expected) => {
    expect(matchesRedaction(original, redacted, pattern)).toBe(expected);
  });
});

describe("compareText", () => {
  it("should name the benign edit or refuse", () => {
    expect(compareText("a b", "a b", "p", pattern)).toEqual([]);
    expect(compareText("a  b\n", "a b", "p", pattern)).toEqual([{ kind: "whitespace_changed", path: "p" }]);
    expect(compareText("key=42", "key=***", "p", pattern)).toEqual([{ kind: "value_redacted", path: "p" }]);
    expect(compareText("key = 42\n", "key = ***", "p", pattern)).toEqual([
      { kind: "value_redacted", path: "p" },
    ]);
    expect(compareText("a  b key=42", "a b key=***", "p", pattern)).toEqual([
      { kind: "value_redacted", path: "p" },
      { kind: "whitespace_changed", path: "p" },
    ]);
    expect(compareText("ab", "a b", "p", pattern)).toBeNull();
  });
});
