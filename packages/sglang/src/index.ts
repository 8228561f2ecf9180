/**
 * @module @relax/sglang
 * Client for SGLang's native `/generate` API (token ids in, token ids and logprobs out), aborts by
 * fixed-length request id, worker selection and router affinity, control endpoints, typed errors, and the
 * zod wire schemas (shared with the `@relax/standin` stand-in engine).
 */

export { GenerateStreamAccumulator, type GenerateStreamDelta } from "./accumulate-generate-stream";
export { convertGenerateRequest } from "./convert-generate-request";
export { createRequestId, REQUEST_ID_LENGTH, requestIdsCollide } from "./create-request-id";
export * from "./errors/index";
export type { FinishReason, GenerateResult, WeightVersionSpan } from "./generate-result";
export { mapSglangFinishReason } from "./map-sglang-finish-reason";
export {
  type ParseGenerateResponseContext,
  parseGenerateResponse,
} from "./parse-generate-response";
export { pickWorker } from "./pick-worker";
export { convertSamplingParams, type SamplingParams } from "./sampling-params";
export type {
  FinishReasonWire,
  GenerateMetaInfoWire,
  GenerateRequestWire,
  GenerateResponseWire,
  LogprobTripleWire,
  ModelInfoWire,
  SamplingParamsWire,
  ServerInfoWire,
} from "./sglang-api";
export {
  abortRequestSchema,
  controlStatusResponseSchema,
  finishReasonWireSchema,
  generateMetaInfoSchema,
  generateRequestSchema,
  generateResponseSchema,
  logprobTripleSchema,
  modelInfoResponseSchema,
  pauseGenerationRequestSchema,
  samplingParamsWireSchema,
  serverInfoResponseSchema,
  streamErrorChunkSchema,
  updateWeightsFromDiskRequestSchema,
  updateWeightsResponseSchema,
  updateWeightVersionRequestSchema,
  weightVersionSpanWireSchema,
  workerListResponseSchema,
} from "./sglang-api";
export { createSglangClient, ROUTING_HEADER } from "./sglang-client";
export type {
  AbortOutcome,
  GenerateOptions,
  GenerateStreamEvent,
  InFlightRequest,
  ModelInfo,
  ServerHealth,
  ServerInfo,
  SglangClient,
  SglangClientOptions,
  WeightUpdateOutcome,
} from "./sglang-client-types";
export { type ControlRetryOptions, RETRY_STATUS_CODES } from "./sglang-http";
