/**
 * @module @relax/sglang/internal
 * SGLang's wire format as zod schemas and their inferred types, shared with servers that imitate SGLang
 * (the `@relax/standin` stand-in engine), the helpers that turn an HTTP failure into a typed error, the
 * numbers of a context-length message, the client's in-flight request records and its transport and
 * control-retry options. **Unstable:** the schemas follow SGLang's wire format and change when it does;
 * these may change or disappear in any release. Use the client from `@relax/sglang` instead.
 */
export { type ContextLengthNumbers, createSglangError, parseRetryAfter } from "../errors/index";
export type {
  FinishReasonWire,
  GenerateMetaInfoWire,
  GenerateRequestWire,
  GenerateResponseWire,
  LogprobTripleWire,
  ModelInfoWire,
  SamplingParamsWire,
  ServerInfoWire,
  SessionParamsWire,
} from "../sglang-api";
export {
  abortRequestSchema,
  closeSessionRequestSchema,
  controlStatusResponseSchema,
  finishReasonWireSchema,
  generateMetaInfoSchema,
  generateRequestSchema,
  generateResponseSchema,
  logprobTripleSchema,
  modelInfoResponseSchema,
  openSessionRequestSchema,
  pauseGenerationRequestSchema,
  samplingParamsWireSchema,
  serverInfoResponseSchema,
  sessionParamsWireSchema,
  streamErrorChunkSchema,
  updateWeightsFromDiskRequestSchema,
  updateWeightsResponseSchema,
  updateWeightVersionRequestSchema,
  weightVersionSpanWireSchema,
  workerListResponseSchema,
} from "../sglang-api";
export type { InFlightRequest } from "../sglang-client-types";
export type { ControlRetryOptions, EngineConnectionOptions } from "../sglang-http";
