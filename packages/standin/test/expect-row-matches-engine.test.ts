import { describe, expect, it } from "vitest";
import { expectRowMatchesEngine, type GenerateExchange } from "../src/testing/index";

// Two turns of one context: prompt [1, 2], reply [3, 4]; observation [5]; reply [6].
const calls: GenerateExchange[] = [
  {
    request: { input_ids: [1, 2] },
    response: {
      output_ids: [3, 4],
      meta_info: {
        output_token_logprobs: [
          [-0.5, 3, null],
          [-0.25, 4, null],
        ],
      },
    },
  },
  {
    request: { input_ids: [1, 2, 3, 4, 5] },
    response: { output_ids: [6], meta_info: { output_token_logprobs: [[-1, 6, null]] } },
  },
  // Another context of the same session (not a prefix of the row): ignored.
  {
    request: { input_ids: [9, 9] },
    response: { output_ids: [7], meta_info: { output_token_logprobs: [[-2, 7, null]] } },
  },
];
const row = {
  tokens: [1, 2, 3, 4, 5, 6],
  prompt_length: 2,
  response_length: 4,
  loss_mask: [1, 1, 0, 1],
  rollout_log_probs: [-0.5, -0.25, 0, -1],
};

describe("expectRowMatchesEngine", () => {
  it("should accept a row that is exactly the context's engine exchanges", () => {
    expect(() => expectRowMatchesEngine(expect, row, calls)).not.toThrow();
  });

  it.each([
    ["a mask bit on an observation id", { loss_mask: [1, 1, 1, 1] }],
    ["a logprob that is not the engine's", { rollout_log_probs: [-0.5, -0.25, 0, -0.9] }],
    ["a wrong prompt length", { prompt_length: 3, response_length: 3 }],
    ["a dropped last token", { tokens: [1, 2, 3, 4, 5] }],
  ])("should reject %s", (_, change) => {
    expect(() => expectRowMatchesEngine(expect, { ...row, ...change }, calls)).toThrow();
  });
});
