/**
 * @module @relax/sglang/internal
 * SGLang's wire format as zod schemas and their inferred types, shared with servers that imitate SGLang
 * (the `@relax/standin` stand-in engine). **Unstable:** the schemas follow SGLang's wire format and change
 * when it does; they may change or disappear in any release. Use the client from `@relax/sglang` instead.
 */
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
