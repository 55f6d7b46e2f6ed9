/**
 * `POST /revoke` (RFC 7009): revoking a refresh token revokes its whole family. Access tokens
 * are self-contained JWTs that expire within the hour; the answer is 200 for them, and for
 * unknown tokens, as §2.2 requires (no oracle for which tokens exist).
 */
import type { Deps } from "../context.ts";
import { hashToken } from "../crypto.ts";
import { OAuthFailure } from "../errors.ts";
import { type Route, jsonResponse, preflightRoute, readForm, single } from "../http.ts";

export function revokeRoutes(deps: Deps): Route[] {
  return [
    { method: "POST", path: "/revoke", handle: (request) => revoke(deps, request) },
    { method: "OPTIONS", path: "/revoke", handle: preflightRoute() },
  ];
}

async function revoke(deps: Deps, request: Request): Promise<Response> {
  const form = await readForm(request);
  const token = single(form, "token");
  const clientId = single(form, "client_id");
  if (!token) throw new OAuthFailure("invalid_request", "token is required.");
  if (!clientId)
    throw new OAuthFailure(
      "invalid_request",
      "client_id is required (public clients identify themselves in the body).",
    );
  const found = await deps.store.findRefresh(hashToken(token));
  // Another client's token is left alone, with the same answer.
  if (found && found.clientId === clientId) {
    const revoked = await deps.store.revokeFamily(found.familyId);
    deps.log.info("refresh token revoked", { client_id: clientId, revoked });
  }
  return jsonResponse({});
}
