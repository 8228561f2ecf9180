import type { FinishReason } from "./generate-result";
import type { FinishReasonWire } from "./sglang-api";

/**
 * Maps SGLang's `meta_info.finish_reason` to `FinishReason`. Returns an error string for a value that
 * cannot be mapped (the caller raises `SglangResponseError` with the field path).
 *
 * @param lastOutputId the last output id, used to pick the matched id when an old build reports a list.
 * @see SGLang `schedule_batch.py` `BaseFinishReason.to_json` subclasses.
 */
export function mapSglangFinishReason(
  wire: FinishReasonWire,
  { lastOutputId, outputLength }: { lastOutputId?: number | undefined; outputLength: number },
): FinishReason | { error: string } {
  switch (wire.type) {
    case "stop": {
      const matched = wire.matched;
      if (matched == null) return { type: "stop" };
      if (Array.isArray(matched)) {
        if (matched.length === 0) return { type: "stop" };
        const id = lastOutputId !== undefined && matched.includes(lastOutputId) ? lastOutputId : matched[0]!;
        return { type: "stop", matched: id };
      }
      return { type: "stop", matched };
    }
    case "length":
      return { type: "length", length: wire.length ?? outputLength };
    case "abort": {
      const reason: FinishReason = { type: "abort", message: wire.message ?? "" };
      if (wire.status_code != null) reason.statusCode = wire.status_code;
      if (wire.err_type != null) reason.errType = wire.err_type;
      return reason;
    }
    default:
      return {
        error: `unknown finish_reason type ${JSON.stringify(wire.type)} (expected stop, length or abort)`,
      };
  }
}
