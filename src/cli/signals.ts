/**
 * SIGTERM and SIGINT end a serving process the same way for every transport: stop taking work,
 * let calls in flight finish (the transport bounds how long), then exit 0. Kept here, not in the
 * transports, so a transport is a plain object that can be started and closed by tests too.
 */
export function closeOnSignals(close: () => unknown): () => void {
  const handler = () => void close();
  process.once("SIGTERM", handler);
  process.once("SIGINT", handler);
  return () => {
    process.off("SIGTERM", handler);
    process.off("SIGINT", handler);
  };
}
