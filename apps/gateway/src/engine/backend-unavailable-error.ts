/** The inference backend did not answer its health check at start-up. */
export class BackendUnavailableError extends Error {
  override readonly name = "BackendUnavailableError";
}
