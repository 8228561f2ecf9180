import { describe, expect, it } from "vitest";
import { stableStringify } from "../../canonical/stable-stringify";
import { convertParameterValue, schemaTypes } from "./convert-parameter-value";

const convert = (raw: string, schema: unknown, untyped: "string" | "json" = "string") =>
  stableStringify(convertParameterValue({ raw, schema, untyped }));

describe("schemaTypes", () => {
  it.each([
    [{ type: "string" }, ["string"]],
    [{ type: ["integer", "null"] }, ["integer", "null"]],
    [{ anyOf: [{ type: "number" }, { type: "boolean" }] }, ["number", "boolean"]],
    [{ enum: ["a", 1, 1.5, true, null] }, ["string", "integer", "number", "boolean", "null"]],
    [{ const: 3 }, ["integer"]],
    [{ properties: {} }, ["object"]],
    [{ items: {} }, ["array"]],
    [{ type: "int64" }, ["integer"]],
    [{ type: "float" }, ["number"]],
    [{ type: "dict" }, ["object"]],
    [{ description: "x" }, undefined],
    ["string", undefined],
  ])("should read %o", (schema, types) => {
    const result = schemaTypes(schema);
    expect(result === undefined ? undefined : [...result]).toEqual(types);
  });
});

describe("convertParameterValue", () => {
  it.each([
    [" Paris ", { type: "string" }, '" Paris "'],
    ["null", { type: "string" }, '"null"'],
    ["null", { type: ["string", "null"] }, "null"],
    ["None", { type: "integer" }, "null"],
    [" 42 ", { type: "integer" }, "42"],
    ["+7", { type: "integer" }, "7"],
    ["4.0", { type: "integer" }, '"4.0"'],
    ["4.0", { type: "number" }, "4"],
    ["-1.5e-7", { type: "number" }, "-1.5e-7"],
    ["1e999", { type: "number" }, '"1e999"'],
    ["99999999999999999999", { type: "integer" }, "99999999999999999999"],
    ["TRUE", { type: "boolean" }, "true"],
    ["yes", { type: "boolean" }, '"yes"'],
    ['{"a": [1, 2.0]}', { type: "object" }, '{"a":[1,2]}'],
    ["{'a': (1,)}", { type: "object" }, '{"a":[1]}'],
    ["[1]", { type: "object" }, '"[1]"'],
    ['["x"]', { type: "array" }, '["x"]'],
    ["3", { type: ["string", "integer"] }, "3"],
    ["abc", { type: ["string", "integer"] }, '"abc"'],
  ])("should convert %j with %o to %s", (raw, schema, expected) => {
    expect(convert(raw, schema)).toBe(expected);
  });

  it("should keep untyped values as strings or try JSON, as asked", () => {
    expect(convert("12", undefined, "string")).toBe('"12"');
    expect(convert("12", undefined, "json")).toBe("12");
    expect(convert('"x"', undefined, "json")).toBe('"x"');
    expect(convert("{'a': True}", undefined, "json")).toBe('{"a":true}');
    expect(convert("plain text", undefined, "json")).toBe('"plain text"');
  });
});
