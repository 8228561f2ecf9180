/**
 * One explicit export record, one JSONL line of `RELAX_OUTPUT_JSON`: a training context named within the
 * session. `messages` are canonical Chat-shaped messages exactly as the agent sent them in its last request
 * of that context, followed by the final assistant message as the API returned it (with
 * `reasoning_content` and `tool_calls`), so that the record names a committed SessionForest state.
 * @see docs/contract.md#export-records
 */
export interface ExportRecord {
  /** Unique non-empty name within the session; also the custom advantage key. */
  name: string;
  messages: ReadonlyArray<Record<string, unknown>>;
  /** The exact tools sent with this context's requests (Chat `{type: "function", function}` shape). */
  tools?: ReadonlyArray<Record<string, unknown>>;
  /** The exact `chat_template_kwargs` sent with this context's requests. */
  chat_template_kwargs?: Record<string, unknown>;
  /** Per-context metrics and custom-advantage inputs. */
  metadata?: Record<string, unknown>;
  /** Per-context task outcome: a number, an object (with `--reward-key`) or `null`. */
  reward?: number | Record<string, number> | null;
}

/**
 * The implicit single-context output: Relax exports the session's one committed conversation and uses
 * this reward and metadata. @see docs/contract.md#export-records
 */
export interface ImplicitOutput {
  metadata?: Record<string, unknown>;
  reward?: number | Record<string, number> | null;
}
