import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers";
import { ReaperUnavailableError } from "../errors/reaper-unavailable-error";
import { locatePackageRoot } from "./locate-package-root";
import { compileReaper, REAPER_SOURCE, resolveReaperBinary } from "./resolve-reaper-binary";

describe("relax-reaper binary", () => {
  it("should resolve (building it if needed) a working binary", async () => {
    const binary = await resolveReaperBinary();
    expect(execFileSync(binary, ["--version"], { encoding: "utf8" })).toBe("relax-reaper 1\n");
    expect(await resolveReaperBinary()).toBe(binary);
  });

  it("should compile the shipped source and fail clearly without a compiler", async () => {
    const root = locatePackageRoot()!;
    const out = join(await tempDir("reaper"), "relax-reaper");
    await compileReaper({ sourcePath: join(root, REAPER_SOURCE), outputPath: out });
    expect(execFileSync(out, ["--version"], { encoding: "utf8" })).toBe("relax-reaper 1\n");
    const error = await compileReaper({
      sourcePath: join(root, REAPER_SOURCE),
      outputPath: `${out}-2`,
      compiler: "/nonexistent/cc",
    }).catch((caught: unknown) => caught);
    expect(ReaperUnavailableError.isInstance(error)).toBe(true);
    expect((error as ReaperUnavailableError).details).toContain("/nonexistent/cc failed to build");
  });

  it("should reject bad arguments and report the agent's status and exit code", () => {
    return resolveReaperBinary().then((binary) => {
      expect(() => execFileSync(binary, ["--bogus"], { stdio: "pipe" })).toThrow();
      const result = (() => {
        try {
          execFileSync(binary, ["--status-fd", "1", "--", "/bin/sh", "-c", "exit 7"], { encoding: "utf8" });
        } catch (error) {
          return error as { status: number; stdout: string };
        }
        throw new Error("expected a non-zero exit");
      })();
      expect(result.status).toBe(7);
      expect(result.stdout).toMatch(/^started \d+\nexit 7 0\ndone 0 1\n$/);
    });
  });
});
