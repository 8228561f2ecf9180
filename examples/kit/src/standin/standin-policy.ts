/**
 * One generation request as the Relax stand-in engine (`@relax/standin`) hands it to a policy module.
 * The engine tokenised nothing itself: `inputIds` are the ids the gateway sent to `/generate`, and
 * `promptText` is their decoding with special tokens kept (`<|im_start|>`, `<tool_response>`, …).
 *
 * Declared here structurally so that example policies do not depend on the engine package; it mirrors
 * the engine's policy request (fields it does not read are allowed).
 */
export interface StandinPolicyRequest {
  /** Prompt token ids, in order. */
  inputIds: readonly number[];
  /** `inputIds` decoded with special tokens. */
  promptText: string;
  /**
   * Sampling parameters of the request. The seed may arrive as `seed` (camelCase form) or
   * `sampling_seed` (SGLang wire form); both are read.
   */
  sampling?: {
    seed?: number | null | undefined;
    sampling_seed?: number | null | undefined;
    [key: string]: unknown;
  };
  /** The request id (`rid`), unique per `/generate` call. */
  rid?: string;
}

/** What a policy generates: response text; the engine tokenises it and appends the stop token. */
export interface StandinPolicyReply {
  text: string;
}

/**
 * A stand-in policy: a deterministic script that plays the model in tests and demos. It is **not a
 * model** and learns nothing; it exists so that the whole rollout path runs on a machine without a GPU.
 */
export type StandinPolicy = (
  request: StandinPolicyRequest,
) => StandinPolicyReply | Promise<StandinPolicyReply>;
