/**
 * An answer whose body never ends, without a declared length: what a hostile or broken upstream
 * sends to see whether a reader holds all of it. `sent()` tells how much went out, to show the
 * reader stopped near its cap instead of at a timeout.
 */
export function endlessAnswer(
  chunkText: string,
  contentType = "application/json",
): { response: Response; sent: () => number } {
  const chunk = new TextEncoder().encode(chunkText);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { response: new Response(body, { headers: { "content-type": contentType } }), sent: () => sent };
}
