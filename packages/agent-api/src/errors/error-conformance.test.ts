import { describeErrorContract } from "@relax-tools/error-conformance";
import * as agentApi from "../index";
import { ShardProtocolError } from "./shard-protocol-error";

describeErrorContract({
  packageName: "@relax/agent-api",
  exports: agentApi,
  cases: [
    { name: "BackendUnavailableError", error: new agentApi.BackendUnavailableError({ message: "down" }) },
    { name: "GatePauseCancelledError", error: new agentApi.GatePauseCancelledError() },
    {
      name: "GatePauseTimeoutError",
      error: new agentApi.GatePauseTimeoutError({ timeoutMs: 5, generating: 2 }),
    },
    {
      name: "GenerationAbortedError",
      error: new agentApi.GenerationAbortedError({ rid: "r1", detail: "aborted" }),
    },
    {
      name: "GroupDroppedError",
      error: new agentApi.GroupDroppedError({ reason: "agent_error", message: "m" }),
    },
    { name: "SessionNotFoundError", error: new agentApi.SessionNotFoundError({ sessionId: "g0-0.s0" }) },
  ],
  internalCases: [
    {
      name: "ShardProtocolError",
      error: new ShardProtocolError("bad message"),
      errorClass: ShardProtocolError,
    },
  ],
});
