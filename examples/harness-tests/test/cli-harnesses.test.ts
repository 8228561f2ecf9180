import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICIES, type HarnessManifest } from "../src/manifest";
import { decodeGenerates, expectRowMatchesEngine, runHarness } from "./run-harness";

const manifest = JSON.parse(
  readFileSync(new URL("../harnesses.json", import.meta.url), "utf8"),
) as HarnessManifest;

describe("real agent CLIs under relax rollout (stand-in engine with a scripted policy — not a model)", () => {
  for (const harness of manifest.clis) {
    const agent = fileURLToPath(new URL(`../../../${harness.recipe}/agent.mjs`, import.meta.url));
    it(`${harness.name}: creates the file with its ${harness.tool} tool, answers, one trained context per session`, async () => {
      const run = await runHarness({
        agentCommand: `${JSON.stringify(process.execPath)} ${JSON.stringify(agent)}`,
        sessions: harness.sessions,
      });
      const context = async () =>
        `\n-- agent logs --\n${run.agentLogs.slice(-4000)}\n-- exchanges --\n${(await decodeGenerates(run.generates)).slice(-4000)}`;
      if (run.groupsDropped !== 0 || run.sessions.some((s) => !s.fileWritten || s.exitCode !== 0)) {
        throw new Error(`${harness.id} did not complete: ${JSON.stringify(run.sessions)}${await context()}`);
      }
      expect(run.groupsDropped).toBe(0);
      // Every session: exit 0, the file exists with the asked content, the harness's answer came back.
      expect(run.sessions).toHaveLength(harness.sessions);
      for (const session of run.sessions) {
        expect(session).toMatchObject({ exitCode: 0, fileWritten: true, answer: "Created hello.txt." });
      }
      // One trained context per session, exact rows.
      expect(new Set(run.rows.map((row) => row.session_id)).size).toBe(harness.sessions);
      expect(run.rows).toHaveLength(harness.sessions);
      for (const row of run.rows) {
        const own = run.generates.filter((call) => call.routingKey === row.session_id);
        expectRowMatchesEngine(expect, row, own);
        expect(row.tokens).toHaveLength(row.prompt_length + row.response_length);
        expect(row.loss_mask).toHaveLength(row.response_length);
        expect(row.num_turns).toBe(harness.requests.main);
        expect(row.reward).toBe(1);
        // Every side request reached the engine too, but none of its tokens is in the row.
        expect(own).toHaveLength(Object.values(harness.requests).reduce((a, b) => a + b, 0));
      }
      // Every request classified as the manifest says, with each class's default policy.
      for (const session of run.sessions) {
        const classes = run.classified.filter((line) => line.session === session.sessionId);
        const counts: Record<string, number> = {};
        for (const line of classes) {
          counts[line.request_class] = (counts[line.request_class] ?? 0) + 1;
          expect(line.harness).toBe(harness.id);
          expect(line.policy).toBe(DEFAULT_POLICIES[line.request_class as keyof typeof DEFAULT_POLICIES]);
        }
        expect(counts).toEqual(harness.requests);
      }
    }, 300_000);
  }
});
