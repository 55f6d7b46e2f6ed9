/**
 * DNS-rebinding protection for `/mcp` (MCP 2025-11-25 "Security warning"): the Host header must
 * name this server and a browser's Origin, when present, must be one we trust. Both answer 403.
 *
 * A web page on evil.example that resolves its own name to 127.0.0.1 reaches a loopback server
 * with `Host: evil.example` and `Origin: http://evil.example`; checking either stops it.
 * Refusals are logged at debug: anyone who can reach the port could otherwise fill the log.
 */
import { isLoopbackHost, isWildcardHost, parseHostHeader } from "../web/addresses.ts";
import { TRANSPORT_ERROR, jsonRpcErrorResponse } from "./jsonrpc-errors.ts";
import type { Middleware } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export interface HostOriginSettings {
  boundHost: string;
  publicUrl: URL;
  allowedHosts?: string[];
  allowedOrigins?: string[];
}

/** A sentence saying what was refused, or undefined when the request may proceed. */
export type HostOriginCheck = (host: string | null, origin: string | null) => string | undefined;

export function createHostOriginCheck({
  boundHost,
  publicUrl,
  allowedHosts,
  allowedOrigins,
}: HostOriginSettings): HostOriginCheck {
  const loopback = isLoopbackHost(boundHost);
  const hosts = allowedHosts ?? defaultHosts(boundHost, publicUrl, loopback);
  const origins = allowedOrigins ?? [publicUrl.origin.toLowerCase()];
  const anyHost = hosts.includes("*");
  const anyOrigin = origins.includes("*");

  const hostAllowed = (header: string) => {
    const value = header.toLowerCase();
    if (hosts.includes(value)) return true;
    const parsed = parseHostHeader(value);
    if (typeof parsed === "string") return false;
    // Loopback names are accepted on any port when bound to loopback: the attack needs a foreign name.
    if (loopback && allowedHosts === undefined && isLoopbackHost(parsed.hostname)) return true;
    return hosts.includes(parsed.hostname);
  };
  const originAllowed = (header: string) => {
    const value = header.toLowerCase();
    if (origins.includes(value)) return true;
    if (!loopback || allowedOrigins !== undefined || !URL.canParse(value)) return false;
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
  };

  return (host, origin) => {
    if (!anyHost && (!host || !hostAllowed(host))) {
      return `Forbidden: the Host header ${quote(host ?? "")} is not one this server answers to (DNS-rebinding protection). Use the server's own address, or start it with --allowed-hosts.`;
    }
    if (!anyOrigin && origin !== null && !originAllowed(origin)) {
      return `Forbidden: requests from the origin ${quote(origin)} are not allowed. Start the server with --allowed-origins ORIGIN to allow it.`;
    }
    return undefined;
  };
}

/** Pipeline step: 403 for a foreign Host or Origin. */
export function hostAndOrigin(state: HttpState, check: HostOriginCheck): Middleware {
  return (exchange, next) => {
    const refusal = check(exchange.request.headers.get("host"), exchange.request.headers.get("origin"));
    if (refusal === undefined) return next();
    state.log.debug("request refused", { reason: refusal });
    return jsonRpcErrorResponse(403, TRANSPORT_ERROR, refusal);
  };
}

function defaultHosts(boundHost: string, publicUrl: URL, loopback: boolean): string[] {
  if (loopback) return ["localhost", "127.0.0.1", "[::1]", publicUrl.host.toLowerCase()];
  const hosts = [publicUrl.host.toLowerCase(), publicUrl.hostname.toLowerCase()];
  if (!isWildcardHost(boundHost)) hosts.push(boundHost.includes(":") ? `[${boundHost}]` : boundHost.toLowerCase());
  return hosts;
}

/** Header values are echoed quoted and cut: they come from anyone, and may be long. */
function quote(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}
