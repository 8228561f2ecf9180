import type { TurnFinishReason } from "@relax/chat";
import { assertNever } from "../shared/assert-never";

/**
 * Canonical finish reason → Response `status` and `incomplete_details`: a turn cut by the length limit
 * is `incomplete` with reason `max_output_tokens`; every other successful turn is `completed` (a
 * function call is an output item, not a status).
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-status
 */
export function mapResponsesFinishReason(finishReason: TurnFinishReason): {
  status: "completed" | "incomplete";
  incomplete_details: { reason: "max_output_tokens" } | null;
} {
  switch (finishReason) {
    case "length":
      return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
    case "stop":
    case "tool_calls":
      return { status: "completed", incomplete_details: null };
    default:
      return assertNever(finishReason);
  }
}
