import { describe, expect, it } from "vitest";
import { launchAgentSession } from "../src/index";
import { createMarkerKit, createTestBackend, ps, shellQuote } from "./helpers";

describe("many concurrent sessions", () => {
  it("should run 200 concurrent short sessions and leave no process or zombie behind", async () => {
    const kit = await createMarkerKit();
    const { backend, ioDirs } = await createTestBackend();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const handle = await launchAgentSession({
          sessionId: `sess-many-${index}`,
          groupId: `g-${index % 8}`,
          rolloutMode: "train",
          baseUrl: "http://h/v1",
          // each agent leaves a marked background process behind for the supervisor to clean up
          command: `( ${shellQuote(kit.sleep)} 30 & ); echo '{"reward": ${index}}' > "$RELAX_OUTPUT_JSON"`,
          graceMs: 1000,
          backend,
          active: true,
        });
        return handle.done;
      }),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(200).fill("succeeded"));
    expect(outcomes.map((outcome) => (outcome.status === "succeeded" ? outcome.output : null))).toEqual(
      Array.from({ length: 200 }, (_, index) => ({ kind: "implicit", reward: index })),
    );
    expect(outcomes.every((outcome) => outcome.reaped && outcome.leftoverProcesses === 1)).toBe(true);
    const rows = await ps();
    expect(rows.filter((row) => kit.names.includes(row.comm))).toEqual([]);
    expect(rows.filter((row) => row.comm === "relax-reaper" && row.ppid === process.pid)).toEqual([]);
    expect(rows.filter((row) => row.ppid === process.pid && row.stat.startsWith("Z"))).toEqual([]);
    expect(await ioDirs()).toEqual([]);
  });
});
