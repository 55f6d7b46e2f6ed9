/**
 * This process's stdin and stdout for the line channel, on Bun's own readers and writers instead
 * of `process.stdin`/`process.stdout`. Bun builds those two (and `process.stderr`) as Node streams
 * on first use, which cost a stdio start-up about 4 ms of CPU (Bun 1.4.4: 3.7 ms for the first
 * of the three, 0.4 ms for the next; `Bun.stdin.stream()` and `Bun.stdout.writer()` 0.15 ms):
 * more than the rest of answering `tools/list`. They offer only what `LineChannel` uses of a Node
 * stream (`LineInput`, `LineOutput`), with the same flow control: stdin is read only while the
 * channel asks for input, and a write into a full pipe reports it (`false`, then `drain`).
 * test/stdio/native-stdio.test.ts fails if a stdio server touches `process.stdin`/`stdout`/`stderr`.
 */
import type { LineInput, LineOutput, StreamListener } from "./lines.ts";

type Listener = (value?: unknown) => void;

/** Stdin as a paused-or-flowing source of Buffers, `end` once, `error` if reading fails. */
export class StdinReader implements LineInput {
  private readonly listeners: Partial<Record<"data" | "end" | "error", Listener>> = {};
  private reader?: ReadableStreamDefaultReader<Uint8Array>;
  private paused = false;
  private pumping = false;
  /** A chunk (or the end) that arrived after `pause`: handed over at `resume`, as a paused Node stream keeps it. */
  private held: Buffer[] = [];
  private ending?: { error?: unknown };

  on(event: "data" | "end" | "error", listener: StreamListener): this {
    this.listeners[event] = listener as Listener;
    if (event === "data") void this.pump();
    return this;
  }

  off(event: "data" | "end" | "error", listener: StreamListener): this {
    if (this.listeners[event] === listener) delete this.listeners[event];
    return this;
  }

  pause(): this {
    this.paused = true;
    return this;
  }

  resume(): this {
    this.paused = false;
    this.release();
    void this.pump();
    return this;
  }

  /** Reads while flowing; a chunk that arrives once paused is held until `resume`. */
  private async pump(): Promise<void> {
    if (this.pumping || this.ending) return;
    this.pumping = true;
    this.reader ??= Bun.stdin.stream().getReader() as ReadableStreamDefaultReader<Uint8Array>;
    while (!this.paused && !this.ending && this.listeners.data) {
      try {
        const { value, done } = await this.reader.read();
        if (done) this.ending = {};
        else this.held.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      } catch (error) {
        this.ending = { error };
      }
      // Outside the try: an exception of a listener is the listener's, not a failed read.
      this.release();
    }
    this.pumping = false;
  }

  /** Hands over what is held, unless paused: the chunks, then the end. */
  private release(): void {
    while (!this.paused) {
      const chunk = this.held.shift();
      if (chunk === undefined) break;
      this.listeners.data?.(chunk);
    }
    if (this.paused || this.held.length > 0 || !this.ending) return;
    const { error } = this.ending;
    if (error === undefined) this.listeners.end?.();
    else this.listeners.error?.(error);
    this.listeners.end = this.listeners.error = undefined;
  }
}

/**
 * Stdout as a writable that says when the pipe is full. Each line is flushed at once (the answer
 * reaches the client before the next turn); when the pipe takes only part, the rest waits in Bun's
 * writer, `write` returns false until it is out, then `drain`. A failed write (EPIPE: the client
 * closed its end) is reported once as `error`; later lines are dropped.
 */
export class StdoutWriter implements LineOutput {
  private readonly listeners: Partial<Record<"drain" | "error", Listener>> = {};
  private sink?: ReturnType<typeof Bun.stdout.writer>;
  private flushing = false;
  private failed = false;

  on(event: "drain" | "error", listener: StreamListener): this {
    this.listeners[event] = listener as Listener;
    return this;
  }

  off(event: "drain" | "error", listener: StreamListener): this {
    if (this.listeners[event] === listener) delete this.listeners[event];
    return this;
  }

  /** False when the line waits in the writer (`drain` follows); throws when the write fails at once. */
  write(line: string): boolean {
    // Dropped, as `error` said: nothing waits for a drain that cannot come.
    if (this.failed) return true;
    this.sink ??= Bun.stdout.writer();
    try {
      // Into a full or broken pipe Bun's write answers with a promise, which rejects (EPIPE) when
      // the client closed its end: unhandled, that rejection was printed as an uncaught error.
      const written = this.sink.write(line);
      if (typeof written !== "number") written.then(undefined, this.fail);
      return !this.flushing && this.flush();
    } catch (error) {
      this.failed = true;
      throw error;
    }
  }

  /** Whether everything written so far is out; else `drain` follows once it is. */
  private flush(): boolean {
    const written = (this.sink as NonNullable<typeof this.sink>).flush();
    if (typeof written === "number") return true;
    this.flushing = true;
    written.then(() => {
      this.flushing = false;
      if (this.failed) return;
      try {
        if (this.flush()) this.listeners.drain?.();
      } catch (error) {
        this.fail(error);
      }
    }, this.fail);
    return false;
  }

  /** Bound once: every failed write or flush of the pipe reports here. */
  private readonly fail = (error: unknown): void => {
    if (this.failed) return;
    this.failed = true;
    this.flushing = false;
    this.listeners.error?.(error);
  };
}
