import { STATUS_TABLE, type StatusRow } from "@relax/protocol";
import { describe, expect, it } from "vitest";
import { ControlError } from "./control-error";
import { controlErrorCodeSchema } from "./control-schemas";

describe("ControlError status", () => {
  it("should have a control row in STATUS_TABLE for every control code, and no other control row", () => {
    const controlRows = (Object.entries(STATUS_TABLE) as Array<[string, StatusRow]>)
      .filter(([, row]) => row.control !== undefined)
      .map(([code]) => code);
    expect([...controlErrorCodeSchema.options].sort()).toEqual(controlRows.sort());
  });

  it.each([
    ["invalid_body", 400],
    ["unauthorized", 401],
    ["not_found", 404],
    ["step_out_of_order", 409],
    ["pause_timeout", 504],
    ["interrupted", 503],
    ["internal_error", 500],
  ] as const)("should answer %s with %i", (code, status) => {
    expect(new ControlError({ code, message: "m" }).status).toBe(status);
  });
});
