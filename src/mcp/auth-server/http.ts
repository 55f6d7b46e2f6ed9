/**
 * Response and request helpers shared by the routes: OAuth JSON errors (RFC 6749 §5.2), the
 * `no-store` rule for anything carrying a token, form bodies with a size cap, and cookies.
 */
import { PUBLIC_CORS, preflight, readableBy } from "../http/cors.ts";
import type { Logger } from "../../core/log.ts";
import { stripControl } from "../../core/text.ts";
import { readAtMost } from "../../core/read-at-most.ts";

/** What the HTTP pipeline passes to a route besides the request. */
export interface RouteContext {
  /** The client's address as the server saw it (for rate limits); absent when unknown. */
  clientAddress?: string;
}

export interface Route {
  method: "GET" | "POST" | "OPTIONS";
  path: string;
  handle(request: Request, ctx: RouteContext): Promise<Response>;
}

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    // Browser-based clients call these endpoints from another origin (no cookies involved).
    headers: { "content-type": "application/json", ...NO_STORE, ...readableBy(PUBLIC_CORS), ...headers },
  });
}

/** An RFC 6749 §5.2 error; the description is a sentence a client developer (or model) can act on. */
export function oauthError(
  error: string,
  description: string,
  status = 400,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(
    { error, error_description: stripControl(description).replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "") },
    status,
    headers,
  );
}

export function preflightRoute(): Route["handle"] {
  return async () => preflight(PUBLIC_CORS);
}

export class BadRequest extends Error {}

const MAX_FORM_BYTES = 16 * 1024;

/** `application/x-www-form-urlencoded` bodies (token, revoke, consent), capped. */
export async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new BadRequest("send the parameters as application/x-www-form-urlencoded (RFC 6749 §3.2).");
  }
  return new URLSearchParams(await readCapped(request, MAX_FORM_BYTES));
}

export async function readCapped(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  const tooLarge = () => new BadRequest(`the request body is larger than ${maxBytes} bytes.`);
  if (declared > maxBytes) throw tooLarge();
  const { bytes, overflowed } = await readAtMost(request.body, maxBytes);
  if (overflowed) throw tooLarge();
  return new TextDecoder().decode(bytes);
}

/** A parameter given at most once (RFC 6749 §3.1: repeated parameters are an error). */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new BadRequest(`the parameter ${name} appears more than once; send it once.`);
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

/** How long a client should wait before trying again while the state store is down. */
export const STORE_RETRY_AFTER_SECONDS = 30;

/** 503 + Retry-After while the state store is down: an OAuth JSON error, or `page` for a browser route. */
export function storeUnavailable(page?: (title: string, message: string, status: number) => Response): Response {
  const message = "The sign-in service cannot reach its storage right now; try again in a minute.";
  const response = page
    ? page("Temporarily unavailable", message, 503)
    : oauthError("temporarily_unavailable", message, 503);
  response.headers.set("retry-after", String(STORE_RETRY_AFTER_SECONDS));
  return response;
}

/**
 * One log line per `intervalMs` for a failure that repeats on every request (the store down):
 * the first occurrence at once, then one line per interval carrying how many were left out.
 */
export function throttledLog(log: Logger, intervalMs: number, now: () => number = Date.now) {
  let lastAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (message: string, fields: Record<string, unknown>) => {
    if (now() - lastAt < intervalMs) {
      suppressed++;
      return;
    }
    log.error(message, suppressed > 0 ? { ...fields, suppressed } : fields);
    lastAt = now();
    suppressed = 0;
  };
}
