/**
 * One line for anything that stops mcpkit before it serves: a configuration mistake says which
 * flag to fix; a system error (port in use, unreadable directory, bad certificate) names the cause
 * and the fix; anything else is one line plus where to find details. Never a stack or bundle source.
 */
import { ConfigError } from "../core/options.ts";

type SystemError = Error & { code?: string; syscall?: string; path?: string; port?: number; address?: string };

const SYSTEM_ERRORS: Record<string, (error: SystemError) => string> = {
  EADDRINUSE: (e) =>
    `${e.address && e.port !== undefined ? `${e.address.includes(":") ? `[${e.address}]` : e.address}:${e.port}` : `the address${e.port ? ` port ${e.port}` : ""}`} is already in use by another program; choose another port with --http HOST:PORT (0 picks a free one) or stop the other program`,
  EACCES: (e) =>
    e.syscall === "listen" || e.port !== undefined
      ? "permission denied binding that port (ports below 1024 need privileges); choose a port of 1024 or above with --http HOST:PORT"
      : `permission denied reading ${e.path ?? "a file"}; check its permissions or choose another path`,
  EADDRNOTAVAIL: () =>
    "that host address is not on this machine; bind 127.0.0.1, ::1, 0.0.0.0 or one of this machine's addresses with --http HOST:PORT",
  ENOENT: (e) => `no such file or directory: ${e.path ?? "(unknown path)"}; check the path`,
  ENOTDIR: (e) => `not a directory: ${e.path ?? "(unknown path)"}; pass a directory`,
};

export function describeStartupFailure(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  const system = error as SystemError;
  const explain = system?.code ? SYSTEM_ERRORS[system.code] : undefined;
  if (explain) return explain(system);
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (/certificate|tls|ssl/i.test(message))
    return `TLS setup failed (${message.slice(0, 200)}); check the certificate and key files`;
  return `unexpected error: ${message.slice(0, 300)}; run with --log-level debug for details`;
}
