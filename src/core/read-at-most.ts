/**
 * Reads a body stream chunk by chunk and stops once it holds more than `limit` bytes, so a runaway
 * or hostile body never sits in memory whole. Each caller decides what "more" means: the BOJ
 * client refuses it, the oj client keeps the first `limit` bytes (docs/contracts/oj.md), HTTP answers 413.
 */
export interface ReadOutcome {
  /** At most `limit` bytes: the whole body, or its first `limit` bytes when it was longer. */
  bytes: Uint8Array;
  /** The body held more than `limit` bytes; the stream was cancelled there. */
  overflowed: boolean;
}

export async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  signal?: AbortSignal,
): Promise<ReadOutcome> {
  if (!body) return { bytes: new Uint8Array(0), overflowed: false };
  const reader = body.getReader();
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  let overflowed = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      const room = limit - total;
      if (value.byteLength > room) {
        overflowed = true;
        if (room > 0) chunks.push(value.subarray(0, room));
        total = limit;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (overflowed) reader.cancel().catch(() => {});
  }
  return { bytes: concat(chunks, total), overflowed };
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
