import { RelaxError } from "@relax/chat";
import { describeErrorContract } from "@relax-tools/error-conformance";
import { expect, it } from "vitest";
import * as protocol from "../index";

describeErrorContract(
  {
    packageName: "@relax/protocol",
    exports: protocol,
    cases: [{ name: "ProtocolError", error: new protocol.ProtocolError({ status: 503, message: "down" }) }],
  },
  () => {
    it("should be a Relax error for @relax/chat and keep its cause", () => {
      const error = new protocol.ProtocolError({ status: 503, message: "down", cause: new Error("root") });
      expect(RelaxError.isInstance(error)).toBe(true);
      expect((error.cause as Error).message).toBe("root");
    });
  },
);
