/**
 * What logs and spans record of a 2025-era session id: the first 16 hex digits of its SHA-256,
 * never the id nor a piece of it. Without authorization the id is the only thing that lets a
 * client use its session, as good as a bearer token to whoever reads the logs or the traces;
 * the tag still ties a session's lines and spans together, the same in both.
 */
export function sessionTag(sessionId: string): string {
  return new Bun.CryptoHasher("sha256").update(sessionId).digest("hex").slice(0, 16);
}
