import { AgentConfigError } from "./agent-config-error";
import { hasMarker } from "./launcher-error";

const marker = "relax.error.ReservedEnvKeyError";
const symbol = Symbol.for(marker);

/**
 * A user setting tried to define an environment variable in the reserved `RELAX_` namespace
 * (the `RELAX_` prefix is reserved by Relax; see docs/contract.md#agent-process-contract). Raised at
 * configuration time, before any process starts.
 */
export class ReservedEnvKeyError extends AgentConfigError {
  protected readonly [symbol] = true;
  /** The rejected variable name, e.g. `RELAX_BASE_URL`. */
  readonly key: string;

  constructor({ path, key }: { path: string; key: string }) {
    super({ path, message: `${key} uses the reserved RELAX_ prefix; Relax sets these variables itself` });
    this.name = "ReservedEnvKeyError";
    this.key = key;
  }

  static override isInstance(error: unknown): error is ReservedEnvKeyError {
    return hasMarker(error, marker);
  }
}
