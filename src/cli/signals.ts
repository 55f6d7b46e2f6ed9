/**
 * SIGTERM and SIGINT end a serving process the same way for every transport: stop taking work,
 * let calls in flight finish (the transport bounds how long), then exit 0. Kept here, not in the
 * transports, so a transport is a plain object that can be started and closed by tests too.
 */

/** A started transport, as far as a signal is concerned. */
interface Closable {
  close(): unknown;
}

/**
 * Handles both signals from now on, before the transport exists: a supervisor may stop mcpkit the
 * moment it reads the readiness line, or while it starts, and a signal with no handler yet kills
 * the process (exit 143, calls and telemetry lost). `onSignal` runs at the signal; the transport
 * given to the function returned is closed then, or at once if a signal already came.
 */
export function closeOnSignals(onSignal?: () => void): (started: Closable) => void {
  let server: Closable | undefined;
  let asked = false;
  const handler = () => {
    asked = true;
    onSignal?.();
    void server?.close();
  };
  process.once("SIGTERM", handler);
  process.once("SIGINT", handler);
  return (started) => {
    server = started;
    if (asked) void started.close();
  };
}
