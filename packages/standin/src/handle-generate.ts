import type { IncomingMessage, ServerResponse } from "node:http";
import type { SessionParamsWire } from "@relax/sglang/internal";
import { buildGenerateResponse, type ResponseShape } from "./build-generate-response";
import type { StandinEngineState } from "./standin-engine-state";
import type { StandinFault } from "./standin-faults";
import { formatSseData, HttpProblem, SSE_HEADERS, sendError, sendJson } from "./standin-http";
import type { StandinJob } from "./standin-scheduler";
import type { StandinSessions } from "./standin-sessions";
import { validateGenerateRequest } from "./validate-generate-request";

/** One `/generate` request as the router hands it over. */
export interface GenerateCall {
  /** The parsed JSON body. */
  body: unknown;
  /** Request headers, lower-cased. */
  headers: Record<string, string>;
  request: IncomingMessage;
  response: ServerResponse;
  /** The fault drawn for this request, when one applies (`reset-after-tokens` is played here). */
  fault: StandinFault | undefined;
}

/**
 * Serves one `/generate` request with the engine's scheduler, tokenizer, sessions and options: validates
 * it, runs it through the scheduler and answers SGLang's JSON body, or its SSE stream (cumulative or
 * incremental chunks, `stream_interval`, the final chunk with `finish_reason` and `e2e_latency`, then
 * `data: [DONE]`). Validation errors of a streaming request are
 * sent inside a 200 stream, as SGLang does. A client disconnect aborts the request. A policy output that
 * breaks the request's constraint (`json_schema`, `structural_tag`) is answered 400 (JSON) or with an SSE
 * error event before `[DONE]`, naming the parameter and the offending offset.
 */
export async function handleGenerate(state: StandinEngineState, call: GenerateCall): Promise<void> {
  const { body, headers, request, response, fault } = call;
  const { scheduler, sessions, contextLength, options } = state;
  const { tokenizer } = options;
  const receivedAt = performance.now();
  const streamRequested =
    typeof body === "object" && body !== null && (body as { stream?: unknown }).stream === true;
  let job: StandinJob;
  let shape: ResponseShape;
  let sessionParams: SessionParamsWire | undefined;
  try {
    ({ job, shape, sessionParams } = validateGenerateRequest(state, { body, headers, receivedAt }));
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    if (streamRequested && error.status === 400) {
      // SGLang raises validation errors inside the stream generator: 200, an error event, [DONE].
      response.writeHead(200, SSE_HEADERS);
      response.write(formatSseData(JSON.stringify({ error: { message: error.message } })));
      response.end(formatSseData("[DONE]"));
      return;
    }
    return sendError(response, error.status, error.message);
  }

  if (sessionParams !== undefined) resolveInSession(job, sessionParams, sessions, contextLength);
  const [stream, incremental] = [streamRequested, options.incrementalStreamingOutput ?? false];
  const interval = job.sampling.stream_interval ?? 1;
  let sentTokens = 0;
  let sentText = 0;
  const promptLogprobs = () => scheduler.promptLogprobs(job.inputIds, shape.logprobStartLen);
  const writeChunk = (final: boolean) => {
    const range = incremental ? { from: sentTokens, textFrom: sentText } : { from: 0, textFrom: 0 };
    const { body: chunk, text } = buildGenerateResponse({
      job,
      tokenizer,
      shape,
      weightVersion: scheduler.weightVersion,
      promptLogprobs,
      final,
      range,
    });
    sentTokens = job.outputIds.length;
    sentText = text.length;
    response.write(formatSseData(JSON.stringify(chunk)));
  };

  const resetAfter = fault?.type === "reset-after-tokens" ? fault.tokens : undefined;
  job.onProgress = (current) => {
    if (resetAfter !== undefined && current.outputIds.length >= resetAfter && !request.socket.destroyed) {
      request.socket.destroy();
      return;
    }
    if (stream && current.state !== "finished" && !current.finishReason && response.writable) {
      if (current.outputIds.length - sentTokens >= interval) writeChunk(false);
    }
  };
  response.on("close", () => {
    if (!response.writableFinished) {
      scheduler.abort({ ridPrefix: job.rid, message: "Request is disconnected from the client side" });
    }
  });
  if (stream) response.writeHead(200, SSE_HEADERS);

  await scheduler.run(job);

  if (response.destroyed || request.socket.destroyed) return;
  if (job.failure !== undefined) {
    if (stream) {
      response.write(formatSseData(JSON.stringify({ error: { message: job.failure } })));
      response.end(formatSseData("[DONE]"));
    } else sendError(response, job.failureStatus ?? 500, job.failure);
    return;
  }
  if (stream) {
    writeChunk(true);
    response.end(formatSseData("[DONE]"));
    return;
  }
  const { body: result } = buildGenerateResponse({
    job,
    tokenizer,
    shape,
    weightVersion: scheduler.weightVersion,
    promptLogprobs,
    final: true,
  });
  sendJson(response, 200, result);
}

/**
 * A request with `session_params`: its prompt becomes the session's prefix + its own ids (see
 * `StandinSessions`), or it is aborted at once, as SGLang's scheduler does (an unknown session or rid,
 * or a full prompt over the context length).
 */
function resolveInSession(
  job: StandinJob,
  params: SessionParamsWire,
  sessions: StandinSessions,
  contextLength: number,
): void {
  const resolved = sessions.resolve(job, params);
  let abort = "abort" in resolved ? resolved.abort : undefined;
  if ("inputIds" in resolved) {
    job.inputIds = resolved.inputIds;
    if (resolved.inputIds.length >= contextLength) {
      abort = `The input (${resolved.inputIds.length} tokens) is longer than the model's context length (${contextLength} tokens).`;
    }
  }
  if (abort !== undefined) {
    job.abortMessage = abort;
    job.controller.abort();
  }
}
