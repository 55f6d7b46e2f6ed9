/**
 * Stdout of the one-shot commands (`tools`, `call`, help, version, `install`, `health`). A reader
 * that stops early (`mcpkit call … | head -c 100`) closes the pipe, and the next write fails with
 * EPIPE: that is no error of the command (PRODUCT.md: "a reader that closes the pipe early is no
 * error"). What it did not read is dropped, nothing is said on stderr, and the command exits with
 * the code it would have had anyway (0 when it answered), as `git log | head` does.
 * Not for the stdio server, whose stdout is the protocol: losing its client is handled there.
 */

/** Writes `text` to stdout; a closed pipe drops it silently. */
export async function writeStdout(text: string): Promise<void> {
  try {
    await Bun.write(Bun.stdout, text);
  } catch (error) {
    if (!isClosedPipe(error)) throw error;
  }
}

/**
 * For commands that write with `process.stdout.write` (install, health): its EPIPE arrives later
 * as an `error` event, which would otherwise end the process as an uncaught exception.
 */
export function dropWritesToClosedPipe(): void {
  process.stdout.on("error", (error) => {
    if (!isClosedPipe(error)) throw error;
  });
}

function isClosedPipe(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EPIPE";
}
