/**
 * Step 0, before routing: the Host header must be well-formed, since the request URL is built
 * from it. `127.0.0.1#evil`, `evil.com@127.0.0.1`, `127.0.0.1/x` or an empty Host get 400 with a
 * sentence, logged at debug only: anyone can send them, so they must not be able to fill the log.
 */
import type { Logger } from "../../core/log.ts";
import { parseHostHeader } from "../web/addresses.ts";
import { TRANSPORT_ERROR, jsonRpcErrorResponse } from "./jsonrpc-errors.ts";

/** A path the URL parser would return unchanged: segments of plain characters, no dot segments, no query. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)+$/;

/** The request URL's path, or the 400 to send instead. */
export function requestPath(request: Request, log: Logger): string | Response {
  const header = request.headers.get("host");
  const host = parseHostHeader(header);
  let path: string | undefined;
  if (typeof host !== "string") {
    path = header === null ? undefined : plainPath(request.url, header);
    try {
      path ??= new URL(request.url).pathname;
    } catch {
      // Bun built the URL from a Host we accepted: not expected, but never a 500.
    }
  }
  if (path !== undefined) return path;
  const why = typeof host === "string" ? host : "the request URL could not be parsed";
  log.debug("malformed request refused", { reason: why });
  return jsonRpcErrorResponse(
    400,
    TRANSPORT_ERROR,
    `Bad Request: ${why}. Send Host: NAME[:PORT] with the server's name or address, e.g. Host: 127.0.0.1:8080.`,
    { headers: { connection: "close" } },
  );
}

/**
 * The path of `http(s)://HOST/path` without parsing the URL, when HOST is the checked Host header
 * and the path is plain (nearly every request: `/mcp`); undefined sends it to the URL parser.
 */
export function plainPath(url: string, host: string): string | undefined {
  const start = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : -1;
  if (start < 0 || !url.startsWith(host, start)) return undefined;
  const path = url.slice(start + host.length);
  return PLAIN_PATH.test(path) ? path : undefined;
}
