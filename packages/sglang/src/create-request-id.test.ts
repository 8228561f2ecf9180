import { describe, expect, it } from "vitest";
import { createRequestId, REQUEST_ID_LENGTH, requestIdsCollide } from "./create-request-id";

describe("createRequestId", () => {
  it("should make fixed-length hex ids that are never prefixes of each other", () => {
    const ids = Array.from({ length: 500 }, () => createRequestId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(REQUEST_ID_LENGTH).toBe(32);
    expect(new Set(ids).size).toBe(ids.length);
    const sorted = [...ids].sort();
    for (let index = 1; index < sorted.length; index++) {
      expect(requestIdsCollide(sorted[index - 1]!, sorted[index]!)).toBe(false);
    }
  });

  it("should flag the prefix hazard of variable-length ids", () => {
    expect(requestIdsCollide("req_1", "req_10")).toBe(true);
    expect(requestIdsCollide("req_10", "req_1")).toBe(true);
    expect(requestIdsCollide("req_1", "req_1")).toBe(false);
    expect(requestIdsCollide("req_1", "req_2")).toBe(false);
  });
});
