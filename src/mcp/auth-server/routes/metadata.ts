/**
 * RFC 8414 authorization server metadata, answered on every path MCP clients probe (the
 * path-inserted and root forms, and OpenID discovery), plus mcpkit's JWKS.
 */
import type { Deps } from "../context.ts";
import { PUBLIC_CORS, readableBy } from "../../web/cors.ts";
import { type Route, preflightRoute } from "../http.ts";
import { SIGNING_ALG } from "../keys.ts";

export const JWKS_PATH = "/.well-known/jwks.json";

export function authorizationServerMetadata(deps: Deps): Record<string, unknown> {
  const { issuer, scopesSupported } = deps.config;
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    revocation_endpoint: `${issuer}/revoke`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    scopes_supported: scopesSupported,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    // OpenID discovery validators insist on these; mcpkit issues no ID tokens.
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
  };
}

export function metadataRoutes(deps: Deps): Route[] {
  const prefix = deps.config.publicUrl.pathname.replace(/\/+$/, "");
  const paths = new Set([
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    ...(prefix
      ? [`/.well-known/oauth-authorization-server${prefix}`, `/.well-known/openid-configuration${prefix}`]
      : []),
  ]);
  const body = JSON.stringify(authorizationServerMetadata(deps));
  const metadata: Route["handle"] = async () =>
    new Response(body, {
      headers: { "content-type": "application/json", "cache-control": "max-age=300", ...readableBy(PUBLIC_CORS) },
    });
  const jwks: Route["handle"] = async () =>
    Response.json(await deps.keys.jwks(), {
      // Short: a key another instance just started must show up soon.
      headers: { "cache-control": "max-age=60", ...readableBy(PUBLIC_CORS) },
    });
  return [
    ...[...paths].flatMap((path): Route[] => [
      { method: "GET", path, handle: metadata },
      { method: "OPTIONS", path, handle: preflightRoute() },
    ]),
    { method: "GET", path: JWKS_PATH, handle: jwks },
    { method: "OPTIONS", path: JWKS_PATH, handle: preflightRoute() },
  ];
}
