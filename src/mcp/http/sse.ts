/**
 * Server-Sent Events for Streamable HTTP: a session's GET stream, and a POST's answer once it
 * has to be a stream (see `session-transport.ts`). Each stream opens with a comment, because Bun
 * sends a streamed response's headers with its first chunk and the client should see 200 at
 * once, and then writes a comment at half the server's idle timeout (`--idle-timeout-s`, 10 s
 * by default, after which Bun closes a silent connection), so a quiet stream stays open.
 * Clients ignore comments.
 */
/** Bun's own default idle timeout, which `--idle-timeout-s` keeps unless told otherwise. */
export const DEFAULT_IDLE_TIMEOUT_S = 10;

/** SSE comment keep-alives; also how long a POST may stay silent before its answer becomes a stream. */
export function keepAliveMs(idleTimeoutS: number): number {
  return idleTimeoutS * 500;
}

export const SSE_KEEP_ALIVE_MS = keepAliveMs(DEFAULT_IDLE_TIMEOUT_S);

const encoder = new TextEncoder();
const OPENED = encoder.encode(": stream open\n\n");
const KEEP_ALIVE = encoder.encode(": keepalive\n\n");

export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly keepAlive: ReturnType<typeof setInterval>;
  private open = true;

  /** `onCancel` runs when the client goes away (not when the server closes the stream). */
  constructor(onCancel: () => void, keepAliveEveryMs = SSE_KEEP_ALIVE_MS) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
        controller.enqueue(OPENED);
      },
      cancel: () => {
        this.stop();
        onCancel();
      },
    });
    this.keepAlive = setInterval(() => this.enqueue(KEEP_ALIVE), keepAliveEveryMs);
    this.keepAlive.unref?.();
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Writes one JSON-RPC message (serialized, one line) as an SSE event; false when the stream has ended. */
  write(json: string): boolean {
    if (!this.open) return false;
    return this.enqueue(encoder.encode(`event: message\ndata: ${json}\n\n`));
  }

  /** Ends the stream (the client sees the end of the body). */
  close(): void {
    if (!this.open) return;
    this.stop();
    try {
      this.controller.close();
    } catch {
      // Already closed or errored by the runtime: nothing left to end.
    }
  }

  private enqueue(chunk: Uint8Array): boolean {
    if (!this.open) return false;
    try {
      this.controller.enqueue(chunk);
      return true;
    } catch {
      // The runtime closed the stream under us (client gone): stop writing to it.
      this.stop();
      return false;
    }
  }

  private stop(): void {
    this.open = false;
    clearInterval(this.keepAlive);
  }
}

/** The 200 that carries an SSE stream, with the headers that keep proxies from buffering it. */
export function sseResponse(stream: SseStream, sessionId: string | undefined): Response {
  const headers: Record<string, string> = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return new Response(stream.body, { status: 200, headers });
}
