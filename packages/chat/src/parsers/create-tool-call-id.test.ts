import { describe, expect, it } from "vitest";
import { createToolCallId } from "./create-tool-call-id";

describe("createToolCallId", () => {
  it("should hash the sorted compact JSON of index, seed, name and arguments (golden from Python hashlib)", () => {
    // python: "call_" + sha256(json.dumps({"call_index": 0, "seed": "s", "name": "get_weather",
    //   "arguments": '{"city":"Paris"}'}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    //   .encode()).hexdigest()[:24]
    expect(
      createToolCallId({ callIndex: 0, seed: "s", name: "get_weather", arguments: '{"city":"Paris"}' }),
    ).toBe("call_f63a505aeffc9be601edec87");
  });

  it("should change with each input", () => {
    const base = { callIndex: 0, seed: "s", name: "f", arguments: "{}" };
    const ids = new Set([
      createToolCallId(base),
      createToolCallId({ ...base, callIndex: 1 }),
      createToolCallId({ ...base, seed: "t" }),
      createToolCallId({ ...base, name: "g" }),
      createToolCallId({ ...base, arguments: '{"a":1}' }),
    ]);
    expect(ids.size).toBe(5);
  });
});
