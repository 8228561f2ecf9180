import type { CanonicalRequest } from "@relax/chat";
import { convertAnthropicMessagesRequest } from "../anthropic-messages/convert-anthropic-messages-request";
import { describeError } from "../errors/describe-error";
import { authenticateRequest } from "./authenticate-request";
import type { HandlerSettings } from "./handler-options";
import { readSessionBody } from "./refusal-backoff";
import { errorDescriptorToResponse } from "./to-error-response";

/**
 * Answers `POST /v1/messages/count_tokens` with `{input_tokens}`: credential, body and Anthropic
 * projection as for a generation (the same errors, in the Messages format), then `count` of the
 * canonical request. Reported to `settings.onRequestEnd` once, success or not.
 */
export async function handleCountTokens(
  httpRequest: Request,
  settings: HandlerSettings,
  count: (request: CanonicalRequest) => number | Promise<number>,
): Promise<Response> {
  const protocol = "anthropic-messages";
  const path = new URL(httpRequest.url).pathname;
  const { onRequestEnd, normalizers } = settings;
  let sessionId: string | undefined;
  try {
    const auth = await authenticateRequest(httpRequest, settings);
    sessionId = auth.sessionId;
    const body = await readSessionBody(httpRequest, auth.sessionId, settings.backoff, {
      maxBytes: settings.maxRequestBytes,
      maxDepth: settings.maxJsonDepth,
      protocol: protocol,
      limits: settings.requestLimits,
    });
    const converted = convertAnthropicMessagesRequest(body, {
      countTokens: true,
      ...(normalizers !== undefined ? { normalizers } : {}),
      ...(auth.history !== undefined ? { history: auth.history } : {}),
    });
    const inputTokens = await count(converted.request);
    onRequestEnd?.({ protocol, sessionId, stream: false, status: 200, path });
    return new Response(JSON.stringify({ input_tokens: inputTokens }), {
      headers: { "content-type": "application/json" },
    });
  } catch (error) {
    const descriptor = describeError(error, protocol);
    onRequestEnd?.({
      protocol,
      sessionId,
      stream: false,
      status: descriptor.status,
      path,
      message: descriptor.message,
      error,
    });
    return errorDescriptorToResponse(descriptor, protocol);
  }
}
