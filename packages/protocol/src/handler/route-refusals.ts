import { describeCode, type ErrorDescriptor } from "../errors/describe-error";

/** 404 `not_found`: no route answers `method` on `pathname`. */
export function noRoute(method: string, pathname: string): ErrorDescriptor {
  return describeCode("not_found", `no route for ${method} ${pathname}`);
}

/** 405 `method_not_allowed`: a generation route takes only `POST` (the answer adds `allow: POST`). */
export function methodNotAllowed(method: string, pathname: string): ErrorDescriptor {
  return describeCode("method_not_allowed", `${method} is not supported on ${pathname}; use POST`);
}

/** 501 `unsupported_endpoint`: `/responses/compact` (see docs/contract.md#responses). */
export function compactUnsupported(): ErrorDescriptor {
  return describeCode(
    "unsupported_endpoint",
    "/responses/compact is not supported: Relax trains on the conversation the agent sends, so it cannot replace history by an opaque compacted item; let the agent compact locally (a summarising /responses request)",
  );
}
