import { describe, expect, it } from "vitest";
import { methodNotAllowed, noRoute } from "./route-refusals";

describe("route refusals", () => {
  it("should describe each refusal by its code's row of STATUS_TABLE", () => {
    expect(noRoute("GET", "/nope")).toEqual({
      status: 404,
      type: "not_found_error",
      code: "not_found",
      param: null,
      message: "no route for GET /nope",
      retryable: false,
    });
    expect(methodNotAllowed("GET", "/v1/messages")).toMatchObject({
      status: 405,
      type: "invalid_request_error",
      code: "method_not_allowed",
      message: "GET is not supported on /v1/messages; use POST",
    });
  });
});
