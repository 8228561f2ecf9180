import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readAnswerSchema } from "@relax/standin";
import { describe, expect, it } from "vitest";
import type { HarnessManifest } from "../src/manifest";
import { decodeGenerates, expectRowMatchesEngine, runHarness } from "./run-harness";

const manifest = JSON.parse(
  readFileSync(new URL("../harnesses.json", import.meta.url), "utf8"),
) as HarnessManifest;
const agent = fileURLToPath(new URL("../sdk-agent.mjs", import.meta.url));

describe("SDK frameworks under relax rollout (stand-in engine with a scripted policy — not a model)", () => {
  for (const sdk of manifest.sdks) {
    for (const sdkCase of sdk.cases) {
      it(`${sdk.name} — ${sdkCase}: write_file tool call, answer, one exact trained context`, async () => {
        const run = await runHarness({
          agentCommand: `${JSON.stringify(process.execPath)} ${JSON.stringify(agent)}`,
          flags: {
            // Default flags for every case: structured output (outputType) is honoured by default.
            agentEnv: [`SDK_CASE=${sdkCase}`],
          },
        });
        if (run.groupsDropped !== 0 || run.sessions.some((s) => !s.fileWritten)) {
          throw new Error(
            `${sdkCase} did not complete: ${JSON.stringify(run.sessions)}\n${run.agentLogs.slice(-3000)}\n${(await decodeGenerates(run.generates)).slice(-3000)}`,
          );
        }
        expect(run.sessions).toEqual([
          expect.objectContaining({ exitCode: 0, fileWritten: true, answer: "Created hello.txt." }),
        ]);
        expect(run.rows).toHaveLength(1);
        const row = run.rows[0]!;
        expectRowMatchesEngine(expect, row, run.generates);
        expect(row.num_turns).toBe(2);
        expect(run.generates).toHaveLength(2);
        if (sdkCase.includes("output-type")) {
          // Every turn carried the agent's output schema to the engine, with default flags: beside the
          // write_file tool, as a structural_tag (a qwen25 tool call OR the answer), never json_schema.
          for (const call of run.generates) {
            expect(call.request.sampling_params).not.toHaveProperty("json_schema");
            const tag = String(call.request.sampling_params.structural_tag);
            expect(JSON.parse(tag)).toMatchObject({ type: "structural_tag" });
            expect(tag).toContain(JSON.stringify('{"name": "write_file", "arguments": '));
            expect(JSON.parse(readAnswerSchema(call.request.sampling_params)!)).toMatchObject({
              type: "object",
              properties: { answer: { type: "string" } },
            });
          }
        }
        expect(run.classified.map((line) => [line.request_class, line.policy])).toEqual([
          ["main", "train"],
          ["main", "train"],
        ]);
      }, 120_000);
    }
  }
});
