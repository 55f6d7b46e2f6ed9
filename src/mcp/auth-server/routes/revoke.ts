/**
 * `POST /revoke` (RFC 7009): revoking a refresh token revokes its whole family. Access tokens
 * are self-contained JWTs that expire within the hour; the answer is 200 for them, and for
 * unknown tokens, as §2.2 requires (no oracle for which tokens exist).
 */
import type { Deps } from "../context.ts";
import { hashToken } from "../crypto.ts";
import { BadRequest, type Route, jsonResponse, oauthError, preflightRoute, readForm, single } from "../http.ts";

export function revokeRoutes(deps: Deps): Route[] {
  return [
    { method: "POST", path: "/revoke", handle: (request) => revoke(deps, request) },
    { method: "OPTIONS", path: "/revoke", handle: preflightRoute() },
  ];
}

async function revoke(deps: Deps, request: Request): Promise<Response> {
  let token: string | undefined;
  let clientId: string | undefined;
  try {
    const form = await readForm(request);
    token = single(form, "token");
    clientId = single(form, "client_id");
  } catch (error) {
    if (error instanceof BadRequest) return oauthError("invalid_request", error.message);
    throw error;
  }
  if (!token) return oauthError("invalid_request", "token is required.");
  if (!clientId)
    return oauthError("invalid_request", "client_id is required (public clients identify themselves in the body).");
  const found = await deps.store.findRefresh(hashToken(token));
  // Another client's token is left alone, with the same answer.
  if (found && found.clientId === clientId) {
    const revoked = await deps.store.revokeFamily(found.familyId);
    deps.log.info("refresh token revoked", { client_id: clientId, revoked });
  }
  return jsonResponse({});
}
