import { hasMarker, RelaxError } from "@relax/chat";

const shardProtocolErrorSymbol = Symbol.for("relax.error.ShardProtocolError");

/** A message between a gateway shard and its controller that failed its schema: the channel reports it and drops the message. */
export class ShardProtocolError extends RelaxError {
  readonly [shardProtocolErrorSymbol] = true;

  constructor(message: string) {
    super({ name: "ShardProtocolError", message });
  }

  /** True for any `ShardProtocolError`, from any copy of this package. */
  static override isInstance(error: unknown): error is ShardProtocolError {
    return hasMarker(error, "relax.error.ShardProtocolError");
  }
}
