/** The part of one recorded `/generate` exchange that {@link expectRowMatchesEngine} reads (SGLang's wire shape). */
export interface GenerateExchange {
  request: { input_ids: readonly number[] };
  response: {
    output_ids: readonly number[];
    /** SGLang `return_logprob` triples `[logprob, token id, text]`, one per output id. */
    meta_info: { output_token_logprobs: ReadonlyArray<readonly [number, number, string | null]> };
  };
}

/** The training-row fields {@link expectRowMatchesEngine} checks (a `@relax/export` row has them all). */
export interface EngineCheckedRow {
  tokens: readonly number[];
  prompt_length: number;
  response_length: number;
  loss_mask: readonly number[];
  rollout_log_probs: readonly number[];
}

/** The assertion functions used (vitest's `expect` fits; so does any library with the same two matchers). */
export type ExpectLike = (value: unknown) => {
  toEqual(expected: unknown): void;
  toBe(expected: unknown): void;
};

/**
 * Asserts that a training row is exactly what the engine saw and produced for one context of a session:
 * `tokens` = the input ids of the context's last `/generate` + its output ids; every earlier turn of that
 * context is a token prefix; `prompt_length` is the first turn's input length; `loss_mask` is 1 exactly on
 * generated ids; `rollout_log_probs` are the engine's logprobs there and 0 elsewhere. `calls` are the
 * session's recorded exchanges, in order; the context's own calls are those whose input + output is a
 * prefix of the row (other contexts of the session are ignored).
 *
 * @throws whatever `expect` throws on the first mismatch (including when no call belongs to the row).
 */
export function expectRowMatchesEngine(
  expect: ExpectLike,
  row: EngineCheckedRow,
  calls: readonly GenerateExchange[],
): void {
  const own = calls.filter((call) => {
    const sequence = [...call.request.input_ids, ...call.response.output_ids];
    return sequence.length <= row.tokens.length && sequence.every((id, i) => row.tokens[i] === id);
  });
  const last = own.at(-1);
  expect(last !== undefined).toBe(true);
  expect(row.tokens).toEqual([...last!.request.input_ids, ...last!.response.output_ids]);
  const promptLength = own[0]!.request.input_ids.length;
  expect(row.prompt_length).toBe(promptLength);
  expect(row.response_length).toBe(row.tokens.length - promptLength);
  const mask = new Array<number>(row.response_length).fill(0);
  const logprobs = new Array<number>(row.response_length).fill(0);
  for (const call of own) {
    const start = call.request.input_ids.length - promptLength;
    call.response.output_ids.forEach((_, i) => {
      mask[start + i] = 1;
      logprobs[start + i] = call.response.meta_info.output_token_logprobs[i]![0];
    });
  }
  expect(row.loss_mask).toEqual(mask);
  expect(row.rollout_log_probs).toEqual(logprobs);
}
