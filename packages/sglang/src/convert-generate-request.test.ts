import { describe, expect, it } from "vitest";
import { convertGenerateRequest } from "./convert-generate-request";
import { SglangInvalidArgumentError } from "./errors/sglang-invalid-argument-error";
import { generateRequestSchema } from "./sglang-api";

function invalidField(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(SglangInvalidArgumentError.isInstance(error)).toBe(true);
    return (error as SglangInvalidArgumentError).field;
  }
  throw new Error("expected SglangInvalidArgumentError");
}

describe("convertGenerateRequest", () => {
  it("should build SGLang's body with ids, forced text options and return_logprob", () => {
    const body = convertGenerateRequest({
      rid: "9f1c2a7e4b6d4c0e8a1b2c3d4e5f6071",
      inputIds: [151644, 872, 198],
      sampling: {
        maxNewTokens: 256,
        temperature: 0.7,
        topP: 0.95,
        topK: 50,
        stop: ["</answer>"],
        stopTokenIds: [151645],
        seed: 42,
        extra: { skip_special_tokens: true, no_stop_trim: false, json_schema: "{}" },
      },
    });
    expect(JSON.stringify(body)).toMatchInlineSnapshot(
      `"{"rid":"9f1c2a7e4b6d4c0e8a1b2c3d4e5f6071","input_ids":[151644,872,198],"sampling_params":{"skip_special_tokens":false,"no_stop_trim":true,"json_schema":"{}","max_new_tokens":256,"temperature":0.7,"top_p":0.95,"top_k":50,"stop":["</answer>"],"stop_token_ids":[151645],"sampling_seed":42},"return_logprob":true}"`,
    );
    expect(generateRequestSchema.safeParse(body).success).toBe(true);
  });

  it("should send image_data in prompt order, and none for text prompts", () => {
    const body = convertGenerateRequest({
      rid: "r",
      inputIds: [151652, 151655, 151653, 151652, 151655, 151653],
      imageData: ["data:image/png;base64,QUFB", "https://example.com/b.png"],
    });
    expect(JSON.stringify(body)).toBe(
      '{"rid":"r","input_ids":[151652,151655,151653,151652,151655,151653],"sampling_params":{"skip_special_tokens":false,"no_stop_trim":true},"return_logprob":true,"image_data":["data:image/png;base64,QUFB","https://example.com/b.png"]}',
    );
    expect(generateRequestSchema.safeParse(body).success).toBe(true);
    expect(convertGenerateRequest({ rid: "r", inputIds: [1], imageData: [] })).not.toHaveProperty(
      "image_data",
    );
    expect(
      invalidField(() => convertGenerateRequest({ rid: "r", inputIds: [1], imageData: ["a", ""] })),
    ).toBe("imageData[1]");
  });

  it("should never send text and accept typed arrays", () => {
    const body = convertGenerateRequest({ rid: "r", inputIds: Int32Array.from([1, 2]) });
    expect(body).toEqual({
      rid: "r",
      input_ids: [1, 2],
      sampling_params: { skip_special_tokens: false, no_stop_trim: true },
      return_logprob: true,
    });
    expect("text" in body).toBe(false);
  });

  it("should name the offending field of bad arguments", () => {
    expect(invalidField(() => convertGenerateRequest({ rid: "r", inputIds: [] }))).toBe("inputIds");
    expect(invalidField(() => convertGenerateRequest({ rid: "r", inputIds: [1, -2] }))).toBe("inputIds[1]");
    expect(invalidField(() => convertGenerateRequest({ rid: "r", inputIds: [1, 2.5] }))).toBe("inputIds[1]");
    expect(
      invalidField(() => convertGenerateRequest({ rid: "r", inputIds: [1], sampling: { maxNewTokens: -1 } })),
    ).toBe("sampling.maxNewTokens");
    expect(
      invalidField(() => convertGenerateRequest({ rid: "r", inputIds: [1], sampling: { topP: 0 } })),
    ).toBe("sampling.topP");
    expect(
      invalidField(() =>
        convertGenerateRequest({ rid: "r", inputIds: [1], sampling: { stopTokenIds: [1, -1] } }),
      ),
    ).toBe("sampling.stopTokenIds[1]");
    expect(
      invalidField(() => convertGenerateRequest({ rid: "r", inputIds: [1], sampling: { stop: ["a", ""] } })),
    ).toBe("sampling.stop[1]");
  });
});
