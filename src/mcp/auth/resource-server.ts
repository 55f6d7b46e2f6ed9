/**
 * mcpkit as an OAuth 2.1 resource server (MCP 2025-11-25 Authorization, RFC 9728, RFC 6750):
 * the protected-resource metadata document, bearer-token checks on `/mcp`, and the
 * `WWW-Authenticate` challenges for 401 (no or bad token) and 403 (insufficient scope).
 *
 * Error bodies are JSON-RPC errors with code -32001 (seed 002) so MCP clients that only read
 * the body still see why. Tokens never appear in them or in the log.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Logger } from "../../core/log.ts";
import { ErrorCode } from "../../core/tool.ts";
import { isScopeGranted } from "../scopes.ts";
import { type JsonRpcId, jsonRpcErrorResponse } from "../http-jsonrpc.ts";
import { TokenRejected, type TokenVerifier, createTokenVerifier } from "./verify.ts";

export const PRM_ROOT_PATH = "/.well-known/oauth-protected-resource";

export interface ResourceServerSettings {
  /** The canonical URI of `/mcp`, e.g. `https://mcp.example.com/mcp` (the RFC 8707 resource). */
  resource: string;
  issuer: string;
  audience: string[];
  jwksUrl?: string;
  requiredScopes: string[];
  /** Scopes the enabled tools need (`boj:read`, …), advertised in the metadata. */
  scopesSupported: string[];
  log: Logger;
}

/** What a request carries once its token checked out: the SDK's AuthInfo plus who it is. */
export interface Authenticated {
  authInfo: AuthInfo;
  subject: string;
}

export interface ResourceServer {
  /** The PRM paths this server answers (`/.well-known/oauth-protected-resource` and `…/mcp`). */
  readonly metadataPaths: readonly string[];
  metadataResponse(): Response;
  /** Either who is calling, or the 401/403/503 response to send instead. */
  authenticate(request: Request): Promise<Authenticated | Response>;
  /** The 403 for a tool call the token's scopes do not cover. */
  insufficientScope(needed: string, toolName: string, id: JsonRpcId): Response;
  warmUp(): Promise<void>;
}

export function createResourceServer(settings: ResourceServerSettings): ResourceServer {
  const { resource, issuer, requiredScopes, scopesSupported, log } = settings;
  const resourceUrl = new URL(resource);
  const mcpPath = resourceUrl.pathname.replace(/\/+$/, "");
  // `…/mcp` is also served when the public URL has a path prefix that a proxy strips.
  const metadataPaths = [...new Set([PRM_ROOT_PATH, `${PRM_ROOT_PATH}${mcpPath}`, `${PRM_ROOT_PATH}/mcp`])];
  // The path-inserted form is the one MCP clients try first (RFC 9728 §3.1).
  const metadataUrl = `${resourceUrl.origin}${PRM_ROOT_PATH}${mcpPath}`;
  const verifier: TokenVerifier = createTokenVerifier({ issuer, audience: settings.audience, jwksUrl: settings.jwksUrl, log });
  // What a client should ask for when it has no token: everything this server may need.
  const challengeScope = [...new Set([...requiredScopes, ...scopesSupported])].join(" ");

  const metadata = JSON.stringify({
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...new Set([...scopesSupported, ...requiredScopes])],
    bearer_methods_supported: ["header"],
    resource_name: "mcpkit",
  });

  // RFC 6750 §3 allows only %x20-21 / %x23-5B / %x5D-7E inside these values: no `"` and no `\`,
  // so quotes become apostrophes instead of being escaped (naive client parsers stop at `\"`).
  const challenge = (params: Record<string, string>) =>
    `Bearer ${Object.entries({ resource_metadata: metadataUrl, ...params })
      .map(([key, value]) => `${key}="${value.replaceAll('"', "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "")}"`)
      .join(", ")}`;

  const unauthorized = (description: string, tokenSent: boolean) =>
    jsonRpcErrorResponse(401, ErrorCode.Unauthorized, `Unauthorized: ${description}`, {
      headers: {
        "www-authenticate": challenge(
          tokenSent
            ? { scope: challengeScope, error: "invalid_token", error_description: description }
            : { scope: challengeScope },
        ),
      },
    });

  const forbidden = (needed: string, description: string, id: JsonRpcId = null) =>
    jsonRpcErrorResponse(403, ErrorCode.Unauthorized, `Forbidden: ${description}`, {
      id,
      headers: {
        "www-authenticate": challenge({ error: "insufficient_scope", scope: needed, error_description: description }),
      },
      data: { requiredScope: needed },
    });

  return {
    metadataPaths,
    metadataResponse: () =>
      new Response(metadata, {
        headers: {
          "content-type": "application/json",
          "cache-control": "max-age=300",
          // Public metadata: browser-based clients must be able to read it.
          "access-control-allow-origin": "*",
        },
      }),

    async authenticate(request) {
      const header = request.headers.get("authorization");
      if (header === null || header.trim() === "") {
        return unauthorized("this server requires an OAuth access token: send Authorization: Bearer <token>.", false);
      }
      const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
      if (!match) {
        return unauthorized('the Authorization header must be "Bearer <token>" with a single token.', true);
      }
      const token = match[1];
      try {
        const verified = await verifier.verify(token);
        const missing = requiredScopes.filter((scope) => !isScopeGranted(verified.scopes, scope));
        if (missing.length > 0) {
          return forbidden(missing.join(" "), `this server requires the scope ${missing.map((s) => `"${s}"`).join(", ")}; request a token that includes it.`);
        }
        return {
          subject: verified.subject,
          authInfo: {
            token: verified.token,
            clientId: verified.clientId,
            scopes: verified.scopes,
            expiresAt: verified.expiresAt,
            resource: resourceUrl,
            extra: { subject: verified.subject },
          },
        };
      } catch (error) {
        if (error instanceof TokenRejected && error.unavailable) {
          return jsonRpcErrorResponse(503, ErrorCode.InternalError, `Service Unavailable: ${error.message}`, {
            headers: { "retry-after": "5" },
          });
        }
        const description = error instanceof TokenRejected ? error.message : "The access token could not be verified.";
        log.debug("token refused", { reason: description });
        return unauthorized(description, true);
      }
    },

    insufficientScope: (needed, toolName, id) =>
      forbidden(needed, `calling ${toolName} needs the scope "${needed}", which this access token does not grant; request a token with that scope.`, id),

    warmUp: () => verifier.warmUp(),
  };
}
