import type { ProtocolWarning } from "./protocol";
import { isPlainObject } from "./type-name";

/**
 * Re-labels the `ignored-field` warnings of fields that change what the reply must be as
 * `contract-change` (see docs/contract.md#rules-for-every-request): a structured-output format
 * (`response_format`, Responses `text.format`, Anthropic `output_config.format` / `output_format`) other
 * than plain text, a `tool_choice` other than auto (`"none"`, `"required"`, a named function; Anthropic
 * `any` / `tool` / `none`), and parallel tool calls switched off (`parallel_tool_calls: false`, Anthropic
 * `tool_choice.disable_parallel_tool_use: true`). Relax generates as if they were absent, so the agent's
 * expectation may silently break; gateways log these at WARN. Other warnings pass through unchanged.
 */
export function contractChangeWarnings(
  body: Record<string, unknown>,
  warnings: ProtocolWarning[],
): ProtocolWarning[] {
  const changes = describeContractChanges(body);
  if (changes.size === 0) return warnings;
  return warnings.map((warning) => {
    const reason = warning.type === "ignored-field" ? changes.get(warning.path) : undefined;
    return reason === undefined
      ? warning
      : {
          type: "contract-change",
          path: warning.path,
          message: `${warning.path} is not honoured: ${reason}`,
        };
  });
}

/** Top-level key → why ignoring it changes the reply's contract. */
function describeContractChanges(body: Record<string, unknown>): Map<string, string> {
  const changes = new Map<string, string>();
  const format = (value: unknown): string | undefined => {
    if (!isPlainObject(value)) return undefined;
    const type = value.type;
    return typeof type === "string" && type !== "text" ? type : undefined;
  };
  const responseFormat = format(body.response_format);
  if (responseFormat !== undefined) {
    changes.set("response_format", `the reply is not constrained to ${JSON.stringify(responseFormat)}`);
  }
  const textFormat = isPlainObject(body.text) ? format(body.text.format) : undefined;
  if (textFormat !== undefined) {
    changes.set("text", `text.format: the reply is not constrained to ${JSON.stringify(textFormat)}`);
  }
  const outputFormat =
    format(body.output_format) ??
    (isPlainObject(body.output_config) ? format(body.output_config.format) : undefined);
  if (outputFormat !== undefined) {
    const key = body.output_format != null ? "output_format" : "output_config";
    changes.set(key, `the reply is not constrained to ${JSON.stringify(outputFormat)}`);
  }
  const toolChoice = body.tool_choice;
  const choice =
    typeof toolChoice === "string" ? toolChoice : isPlainObject(toolChoice) ? toolChoice.type : undefined;
  const reasons: string[] = [];
  if (toolChoice != null && choice !== "auto") {
    const formatted = responseFormat ?? textFormat ?? outputFormat;
    reasons.push(
      choice === "none" && formatted !== undefined
        ? `tool_choice "none" is treated as "auto", except that the reply is constrained to the response format alone (no tool call)`
        : `tool_choice ${JSON.stringify(choice ?? toolChoice)} is treated as "auto"`,
    );
  }
  if (isPlainObject(toolChoice) && toolChoice.disable_parallel_tool_use === true) {
    reasons.push("the model may still write several tool calls (disable_parallel_tool_use)");
  }
  if (reasons.length > 0) changes.set("tool_choice", reasons.join("; "));
  if (body.parallel_tool_calls === false) {
    changes.set("parallel_tool_calls", "the model may still write several tool calls in one turn");
  }
  return changes;
}
