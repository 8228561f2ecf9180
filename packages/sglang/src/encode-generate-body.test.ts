import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { convertGenerateRequest, convertGenerateRequestParts } from "./convert-generate-request";
import { encodeGenerateBody } from "./encode-generate-body";

const decode = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

describe("encodeGenerateBody", () => {
  it("writes exactly the bytes of JSON.stringify of the wire", () => {
    const options = {
      rid: "r-1",
      inputIds: [151644, 872, 198, 0, 9, 10, 99, 100, 151645],
      sampling: { maxNewTokens: 64, temperature: 1, stopTokenIds: [151645] },
    };
    const body = encodeGenerateBody(convertGenerateRequestParts(options), options.inputIds);
    expect(decode(body)).toBe(
      '{"rid":"r-1","input_ids":[151644,872,198,0,9,10,99,100,151645],"sampling_params":{"max_new_tokens":64,"temperature":1,"stop_token_ids":[151645],"skip_special_tokens":false,"no_stop_trim":true},"return_logprob":true}',
    );
    expect(Buffer.from(body).equals(Buffer.from(JSON.stringify(convertGenerateRequest(options))))).toBe(true);
  });

  it("matches JSON.stringify for any ids, typed arrays, images, stream and non-ASCII rids (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: 1, maxLength: 12 }),
        fc.array(
          fc.oneof(
            fc.nat({ max: 300_000 }),
            fc.nat({ max: 9 }),
            fc.constantFrom(262_143, 262_144, 2 ** 31 - 1, 1e21),
          ),
          { minLength: 1, maxLength: 200 },
        ),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.array(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 2 }), {
          nil: undefined,
        }),
        (rid, ids, typed, stream, imageData) => {
          const inputIds = typed && ids.every((id) => id < 2 ** 31) ? Int32Array.from(ids) : ids;
          const options = {
            rid,
            inputIds,
            ...(imageData !== undefined ? { imageData } : {}),
            sampling: { maxNewTokens: 8, stop: ["ü"] },
            returnLogprob: false,
          };
          const parts = convertGenerateRequestParts(options);
          const wire = convertGenerateRequest(options);
          if (stream) {
            parts.stream = true;
            wire.stream = true;
          }
          const got = Buffer.from(encodeGenerateBody(parts, inputIds));
          expect(got.equals(Buffer.from(JSON.stringify(wire)))).toBe(true);
        },
      ),
      { numRuns: 300, seed: 16 },
    );
  });

  it("writes 128k ids like JSON.stringify", () => {
    const ids = Array.from({ length: 131_072 }, (_, i) => (i * 7919) % 151_936);
    const options = { rid: "long", inputIds: Int32Array.from(ids), sampling: { maxNewTokens: 1 } };
    const body = Buffer.from(encodeGenerateBody(convertGenerateRequestParts(options), options.inputIds));
    expect(
      body.equals(Buffer.from(JSON.stringify(convertGenerateRequest({ ...options, inputIds: ids })))),
    ).toBe(true);
  });
});
