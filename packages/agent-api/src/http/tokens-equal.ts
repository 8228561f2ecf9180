import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Compares a presented credential with the expected token in constant time: both are hashed with
 * SHA-256 first, so neither the content nor the length of the token leaks through timing.
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header, or `undefined`. */
export function readBearerToken(header: string | null | undefined): string | undefined {
  if (header == null) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}
