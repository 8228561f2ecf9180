/**
 * @module @relax/sglang
 * Client for SGLang's native `/generate` API (token ids in, token ids and logprobs out), aborts by
 * fixed-length request id, worker selection and router affinity, control endpoints and typed errors.
 *
 * This file is the public contract. SGLang's zod wire schemas (shared with the `@relax/standin` stand-in
 * engine), the error helpers and the client's transport options live in `@relax/sglang/internal`
 * (unstable: they follow SGLang's wire format and the client's internals).
 */

export { createRequestId } from "./create-request-id";
// Errors
export {
  ContextLengthError,
  SglangAbortError,
  SglangApiError,
  SglangConnectionError,
  SglangError,
  SglangInvalidArgumentError,
  SglangResponseError,
  SglangServerError,
  SglangTimeoutError,
} from "./errors/index";
export type { FinishReason, GenerateResult, WeightVersionSpan } from "./generate-result";
export type { SamplingParams } from "./sampling-params";
// Client
export { createSglangClient } from "./sglang-client";
export type {
  AbortOutcome,
  GenerateOptions,
  GenerateStreamEvent,
  ModelInfo,
  ServerHealth,
  ServerInfo,
  SglangClient,
  SglangClientOptions,
  WeightUpdateOutcome,
} from "./sglang-client-types";
