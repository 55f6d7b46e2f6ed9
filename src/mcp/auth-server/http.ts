/**
 * Response and request helpers shared by the routes: successful JSON answers under the
 * `no-store` rule for anything carrying a token, form bodies with a size cap, and cookies.
 * Failures are `OAuthFailure`s (errors.ts), rendered in one place.
 */
import { PUBLIC_CORS, preflight, readableBy } from "../web/cors.ts";
import { readBodyAtMost } from "../../core/read-at-most.ts";
import { type ErrorCode, NO_STORE, OAuthFailure } from "./errors.ts";

/** What the HTTP pipeline passes to a route besides the request. */
export interface RouteContext {
  /** The client's address as the server saw it (for rate limits); absent when unknown. */
  clientAddress?: string;
}

export interface Route {
  method: "GET" | "POST" | "OPTIONS";
  path: string;
  /** Answers a person's browser (`/authorize`, `/consent`, the callback): its failures are pages. */
  browser?: boolean;
  /** Answers, or throws an `OAuthFailure` (or anything else, which becomes a generic 500/503). */
  handle(request: Request, ctx: RouteContext): Promise<Response>;
}

/** A successful JSON answer (200 or 201). */
export function jsonResponse(body: unknown, status: 200 | 201 = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    // Browser-based clients call these endpoints from another origin (no cookies involved).
    headers: { "content-type": "application/json", ...NO_STORE, ...readableBy(PUBLIC_CORS) },
  });
}

export function preflightRoute(): Route["handle"] {
  return async () => preflight(PUBLIC_CORS);
}

const MAX_FORM_BYTES = 16 * 1024;

/** A request that cannot be read: JSON `code` to a client, the "Invalid request" page in a browser. */
const unreadable = (description: string, code: ErrorCode = "invalid_request") =>
  new OAuthFailure(code, description, { page: "Invalid request" });

/** `application/x-www-form-urlencoded` bodies (token, revoke, consent), capped. */
export async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw unreadable("send the parameters as application/x-www-form-urlencoded (RFC 6749 §3.2).");
  }
  return new URLSearchParams(await readCapped(request, MAX_FORM_BYTES));
}

/** The body as text, at most `maxBytes`; `code` is the error a larger one gets (RFC 7591 has its own). */
export async function readCapped(
  request: Request,
  maxBytes: number,
  code: ErrorCode = "invalid_request",
): Promise<string> {
  // A body cut off on the way (the client went away) is the client's failure, not the server's.
  const bytes = await readBodyAtMost(request, maxBytes).catch(() => {
    throw unreadable("the request body could not be read to its end; send it again.", code);
  });
  if (!bytes) throw unreadable(`the request body is larger than ${maxBytes} bytes.`, code);
  return new TextDecoder().decode(bytes);
}

/** A parameter given at most once (RFC 6749 §3.1: repeated parameters are an error). */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw unreadable(`the parameter ${name} appears more than once; send it once.`);
  return values[0] === "" ? undefined : values[0];
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  return header ? (new Bun.CookieMap(header).get(name) ?? undefined) : undefined;
}

export interface CookieSettings {
  /** `__Host-` + Secure on https; on plain-http loopback a port-specific name without Secure. */
  secure: boolean;
  port: string;
}

export function cookieName(base: string, settings: CookieSettings): string {
  // `__Host-` needs Secure, which browsers refuse over plain http; the port keeps two local
  // instances (cookies ignore ports) from overwriting each other.
  return settings.secure ? `__Host-${base}` : `${base}-${settings.port}`;
}

export function setCookie(name: string, value: string, maxAgeSeconds: number, settings: CookieSettings): string {
  return new Bun.Cookie(name, value, {
    path: "/",
    maxAge: maxAgeSeconds,
    httpOnly: true,
    sameSite: "lax",
    secure: settings.secure,
  }).serialize();
}

export function redirect(location: string, headers: Record<string, string> | [string, string][] = {}): Response {
  const response = new Response(null, { status: 302, headers: { location, ...NO_STORE } });
  for (const [key, value] of Array.isArray(headers) ? headers : Object.entries(headers))
    response.headers.append(key, value);
  return response;
}
