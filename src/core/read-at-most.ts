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

/**
 * A request's or an answer's body, at most `maxBytes`; undefined when it is larger: refused on its
 * declared length before a byte is read, else read until it passes the cap (a body that never
 * ends is cut there). An answer refused on its length is cancelled, which frees its connection.
 */
export async function readBodyAtMost(
  message: Request | Response,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<Uint8Array | undefined> {
  const declared = Number(message.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    if (message instanceof Response) message.body?.cancel().catch(() => {});
    return undefined;
  }
  const { bytes, overflowed } = await readAtMost(message.body, maxBytes, signal);
  return overflowed ? undefined : bytes;
}

/** Statuses whose answer has no body: a Response built with one throws. */
const BODILESS = new Set([101, 103, 204, 205, 304]);

/**
 * An upstream answer with its body read into memory, at most `maxBytes`, for a library that reads
 * the body itself (oauth4webapi, jose) and would read any size; a larger body throws `tooLarge()`.
 */
export async function bufferedAnswer(response: Response, maxBytes: number, tooLarge: () => Error): Promise<Response> {
  const bytes = await readBodyAtMost(response, maxBytes);
  if (!bytes) throw tooLarge();
  const { status, statusText, headers } = response;
  return new Response(BODILESS.has(status) ? null : bytes, { status, statusText, headers });
}
