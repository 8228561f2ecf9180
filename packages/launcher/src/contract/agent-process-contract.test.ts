import { describe, expect, it } from "vitest";
import { buildAgentEnv, buildContractEnv, RELAX_ENV, sessionIoPaths } from "./agent-process-contract";

const identity = {
  sessionId: "s-1",
  groupId: "g-1",
  rolloutMode: "train" as const,
  baseUrl: "http://gw:8000/agentic_api/v1",
};

describe("agent process contract", () => {
  it("should name the seven variables of the agent process contract", () => {
    expect(Object.values(RELAX_ENV)).toEqual([
      "RELAX_INPUT_JSON",
      "RELAX_OUTPUT_JSON",
      "RELAX_SESSION_IO_DIR",
      "RELAX_BASE_URL",
      "RELAX_SESSION_ID",
      "RELAX_ROLLOUT_MODE",
      "RELAX_GROUP_ID",
    ]);
  });

  it("should build the paths and the contract env", () => {
    const paths = sessionIoPaths("/tmp/relax-session-s-1-abc");
    expect(paths).toEqual({
      ioDir: "/tmp/relax-session-s-1-abc",
      inputJson: "/tmp/relax-session-s-1-abc/session_input.json",
      outputJson: "/tmp/relax-session-s-1-abc/session_output.json",
    });
    expect(buildContractEnv({ identity, paths })).toEqual({
      RELAX_INPUT_JSON: "/tmp/relax-session-s-1-abc/session_input.json",
      RELAX_OUTPUT_JSON: "/tmp/relax-session-s-1-abc/session_output.json",
      RELAX_SESSION_IO_DIR: "/tmp/relax-session-s-1-abc",
      RELAX_BASE_URL: "http://gw:8000/agentic_api/v1",
      RELAX_SESSION_ID: "s-1",
      RELAX_ROLLOUT_MODE: "train",
      RELAX_GROUP_ID: "g-1",
    });
  });

  it("should layer agentEnv < harness env < contract", () => {
    const env = buildAgentEnv({
      agentEnv: { A: "agent", B: "agent" },
      harnessEnv: { B: "harness" },
      identity,
      paths: sessionIoPaths("/io"),
    });
    expect(env).toMatchObject({
      A: "agent",
      B: "harness",
      RELAX_SESSION_ID: "s-1",
      RELAX_SESSION_IO_DIR: "/io",
    });
    expect(() =>
      buildAgentEnv({ harnessEnv: { RELAX_GROUP_ID: "x" }, identity, paths: sessionIoPaths("/io") }),
    ).toThrow("harness.env.RELAX_GROUP_ID");
  });
});
