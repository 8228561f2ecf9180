import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hideControlTokenArgument, redactArgv } from "./redact-command-line";

describe("redactArgv", () => {
  it("should replace the values of the named flags in both spellings", () => {
    expect(
      redactArgv(
        ["node", "cli.js", "serve", "--control-token", "s3cret", "--port", "8000", "--control-token=x2"],
        ["--control-token"],
      ),
    ).toBe("node cli.js serve --control-token <redacted> --port 8000 --control-token=<redacted>");
  });
});

describe("hideControlTokenArgument", () => {
  it("should rewrite what /proc/<pid>/cmdline shows and return the warning naming the safe alternatives", () => {
    const title = process.title;
    try {
      const token = "0123456789abcdef0123456789abcdef";
      const warning = hideControlTokenArgument([
        process.argv[0]!,
        "cli.js",
        "serve",
        "--control-token",
        token,
      ]);
      expect(warning).toContain("$RELAX_CONTROL_TOKEN or --control-token-file <path>");
      const cmdline = readFileSync("/proc/self/cmdline", "utf8").replaceAll("\0", " ").trim();
      expect(cmdline).toBe(
        `${process.argv[0]} cli.js serve --control-token <redacted>`.slice(0, cmdline.length),
      );
      expect(cmdline).not.toContain(token);
      expect(hideControlTokenArgument(["node", "cli.js", "serve"])).toBeNull();
    } finally {
      process.title = title;
    }
  });
});
