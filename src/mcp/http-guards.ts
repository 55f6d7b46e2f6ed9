/**
 * DNS-rebinding protection for `/mcp` (MCP 2025-11-25 "Security warning"): the Host header must
 * name this server and a browser's Origin, when present, must be one we trust. Both answer 403.
 *
 * A web page on evil.example that resolves its own name to 127.0.0.1 reaches a loopback server
 * with `Host: evil.example` and `Origin: http://evil.example`; checking either stops it.
 */
import { isLoopbackHost, isWildcardHost } from "./http-options.ts";

export interface RequestGuard {
  /** A sentence saying what was refused, or undefined when the request may proceed. */
  refuse(request: Request): string | undefined;
}

interface GuardSettings {
  boundHost: string;
  publicUrl: URL;
  allowedHosts?: string[];
  allowedOrigins?: string[];
}

export function createRequestGuard({ boundHost, publicUrl, allowedHosts, allowedOrigins }: GuardSettings): RequestGuard {
  const loopback = isLoopbackHost(boundHost);
  const hosts = allowedHosts ?? defaultHosts(boundHost, publicUrl, loopback);
  const origins = allowedOrigins ?? [publicUrl.origin.toLowerCase()];
  const anyHost = hosts.includes("*");
  const anyOrigin = origins.includes("*");

  const hostAllowed = (header: string) => {
    const value = header.toLowerCase();
    if (hosts.includes(value)) return true;
    const name = hostnameOf(value);
    if (name === undefined) return false;
    // Loopback names are accepted on any port when bound to loopback: the attack needs a foreign name.
    if (loopback && allowedHosts === undefined && isLoopbackHost(name)) return true;
    return hosts.includes(name);
  };
  const originAllowed = (header: string) => {
    const value = header.toLowerCase();
    if (origins.includes(value)) return true;
    if (loopback && allowedOrigins === undefined) {
      try {
        const url = new URL(value);
        return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
      } catch {
        return false;
      }
    }
    return false;
  };

  return {
    refuse(request) {
      if (!anyHost) {
        const host = request.headers.get("host");
        if (!host || !hostAllowed(host)) {
          return `Forbidden: the Host header ${JSON.stringify(host ?? "")} is not one this server answers to (DNS-rebinding protection). Use the server's own address, or start it with --allowed-hosts.`;
        }
      }
      if (!anyOrigin) {
        const origin = request.headers.get("origin");
        if (origin !== null && !originAllowed(origin)) {
          return `Forbidden: requests from the origin ${JSON.stringify(origin)} are not allowed. Start the server with --allowed-origins ${origin} to allow it.`;
        }
      }
      return undefined;
    },
  };
}

function defaultHosts(boundHost: string, publicUrl: URL, loopback: boolean): string[] {
  if (loopback) return ["localhost", "127.0.0.1", "[::1]", publicUrl.host.toLowerCase()];
  const hosts = [publicUrl.host.toLowerCase(), publicUrl.hostname.toLowerCase()];
  if (!isWildcardHost(boundHost)) hosts.push(boundHost.includes(":") ? `[${boundHost}]` : boundHost.toLowerCase());
  return hosts;
}

/** `example.com:8080` → `example.com`, `[::1]:80` → `[::1]`; undefined for garbage. */
function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return undefined;
  }
}
