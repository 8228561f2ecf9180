import { describeCode, type ErrorDescriptor } from "../errors/describe-error";

/** 404 `not_found`: no route answers `method` on `pathname`. */
export function noRoute(method: string, pathname: string): ErrorDescriptor {
  return describeCode("not_found", `no route for ${method} ${pathname}`);
}

/** 405 `method_not_allowed`: a generation route takes only `POST` (the answer adds `allow: POST`). */
export function methodNotAllowed(method: string, pathname: string): ErrorDescriptor {
  return describeCode("method_not_allowed", `${method} is not supported on ${pathname}; use POST`);
}
