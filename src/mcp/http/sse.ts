/**
 * Bun sends a streamed response's headers with its first chunk, and the SDK's GET stream stays
 * silent until there is something to say; an SSE comment up front lets the client see 200 now.
 */
const OPENED = new TextEncoder().encode(": stream open\n\n");

export function flushSseHeaders(response: Response): Response {
  if (response.status !== 200 || !response.body || !response.headers.get("content-type")?.includes("text/event-stream"))
    return response;
  const source = response.body.getReader();
  let sentOpening = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentOpening) {
        sentOpening = true;
        controller.enqueue(OPENED);
        return;
      }
      const { done, value } = await source.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
