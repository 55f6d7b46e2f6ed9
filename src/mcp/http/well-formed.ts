/**
 * Step 0, before routing: the Host header must be well-formed, since the request URL is built
 * from it. `127.0.0.1#evil`, `evil.com@127.0.0.1`, `127.0.0.1/x` or an empty Host get 400 with a
 * sentence, logged at debug only: anyone can send them, so they must not be able to fill the log.
 */
import type { Logger } from "../../core/log.ts";
import { parseHostHeader } from "./addresses.ts";
import { TRANSPORT_ERROR, jsonRpcErrorResponse } from "./jsonrpc-errors.ts";

/** The parsed request URL, or the 400 to send instead. */
export function requestUrl(request: Request, log: Logger): URL | Response {
  const host = parseHostHeader(request.headers.get("host"));
  let url: URL | undefined;
  if (typeof host !== "string") {
    try {
      url = new URL(request.url);
    } catch {
      // Bun built the URL from a Host we accepted: not expected, but never a 500.
    }
  }
  if (url) return url;
  const why = typeof host === "string" ? host : "the request URL could not be parsed";
  log.debug("malformed request refused", { reason: why });
  return jsonRpcErrorResponse(
    400,
    TRANSPORT_ERROR,
    `Bad Request: ${why}. Send Host: NAME[:PORT] with the server's name or address, e.g. Host: 127.0.0.1:8080.`,
    { headers: { connection: "close" } },
  );
}
