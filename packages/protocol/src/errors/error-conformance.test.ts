import { RelaxError } from "@relax/chat";
import { describe, expect, it } from "vitest";
import * as protocol from "../index";

// The literal global symbols of the Relax error contract, written out here on purpose: a test of the
// package's own constant would pass even if other packages could not recognise the errors.
const relaxError = Symbol.for("relax.error");
const symbolOf = (name: string) => Symbol.for(`relax.error.${name}`);

describe("@relax/protocol error contract", () => {
  it("should export ProtocolError as its only error class", () => {
    const exported = Object.entries(protocol).filter(
      ([name, value]) => /^[A-Z]\w*Error$/.test(name) && typeof value === "function",
    );
    expect(exported.map(([name]) => name)).toEqual(["ProtocolError"]);
  });

  it("should mark ProtocolError with the literal global symbols and recognise foreign copies", () => {
    const error = new protocol.ProtocolError({ status: 503, message: "down", cause: new Error("root") });
    const record = error as unknown as Record<symbol, unknown>;
    expect(record[relaxError]).toBe(true);
    expect(record[symbolOf("ProtocolError")]).toBe(true);
    expect(error.name).toBe("ProtocolError");
    expect(RelaxError.isInstance(error)).toBe(true);
    expect(protocol.ProtocolError.isInstance({ [relaxError]: true, [symbolOf("ProtocolError")]: true })).toBe(
      true,
    );
    expect(protocol.ProtocolError.isInstance(new Error("plain"))).toBe(false);
    expect((error.cause as Error).message).toBe("root");
  });
});
