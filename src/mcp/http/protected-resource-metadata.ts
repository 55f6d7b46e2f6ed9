/** RFC 9728 protected-resource metadata, at the root and the path-inserted well-known URIs (with --auth). */
import { PUBLIC_CORS, preflight } from "../web/cors.ts";
import { methodNotAllowed } from "./jsonrpc-errors.ts";
import { type Middleware, passThrough, route } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export function protectedResourceMetadata(state: HttpState): Middleware {
  const server = state.resourceServer;
  if (!server) return passThrough;
  return route(server.metadataPaths, ({ request }) => {
    if (request.method === "OPTIONS") return preflight(PUBLIC_CORS);
    if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed("GET");
    return server.metadataResponse();
  });
}
