/**
 * A new Idempotency-Key: 128 random bits in hex (crypto.randomUUID needs a secure context; getRandomValues works
 * everywhere). A request that creates something keeps its key until it succeeds, so that sending it again after a
 * lost answer creates nothing twice.
 */
export function newRequestKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}
