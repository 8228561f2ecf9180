/** Exhaustiveness guard for our own unions: unreachable when the types are right. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}
