import { hasMarker } from "@relax/chat";

/**
 * Whether an engine call failed because the backend is down or overloaded (not because of the request):
 * no connection, no answer in time, a 5xx, or a 429.
 */
export function isEngineOutageError(error: unknown): boolean {
  if (hasMarker(error, "relax.error.SglangConnectionError")) return true;
  if (hasMarker(error, "relax.error.SglangTimeoutError")) return true;
  if (hasMarker(error, "relax.error.BackendUnavailableError")) return true;
  if (hasMarker(error, "relax.error.SglangApiError")) {
    const status = (error as { status?: unknown }).status;
    return typeof status === "number" && (status >= 500 || status === 429);
  }
  return false;
}
