/** What the stdio entry point (`serve.ts`) holds of a connection, whichever era its first message chose. */
import type { JsonRpcMessage } from "./lines.ts";

/** How long the end of stdin waits for answers still being worked on before the process exits. */
export const DRAIN_MS = 10_000;

export interface StdioConnection {
  deliver(message: JsonRpcMessage): void;
  /** Stdin ended, or `close` stopped reading it: answers still being worked on are written first (DRAIN_MS at most). */
  inputEnded(): void;
  /** Resolves once the connection has nothing more to write. */
  closed: Promise<void>;
  /** Ends the connection now (SIGTERM). */
  close(): Promise<void>;
}
