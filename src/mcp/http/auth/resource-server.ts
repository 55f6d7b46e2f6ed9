/**
 * mcpkit as an OAuth 2.1 resource server (MCP 2025-11-25 Authorization, RFC 9728, RFC 6750):
 * the protected-resource metadata document and bearer-token checks. The refusals themselves are
 * in `challenges.ts`, the token checks in `token-verifier.ts`.
 */
import { scrubbed } from "../../../core/scrubbed.ts";
import { PUBLIC_CORS, readableBy } from "../../web/cors.ts";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Logger } from "../../../core/log.ts";
import { isScopeGranted } from "../../../core/scopes.ts";
import type { JsonRpcId } from "../jsonrpc-errors.ts";
import { ownerKey } from "../../protocol/caller.ts";
import { type Challenges, createChallenges } from "./challenges.ts";
import { TokenRejected, type TokenVerifier, type VerifiedToken, createTokenVerifier } from "./token-verifier.ts";

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
  /**
   * With mcpkit's own authorization server: whether the sign-in a token names (`sid`) was revoked,
   * so a replayed code or a reused refresh token also ends the access tokens already issued.
   */
  isSignInRevoked?: (signInId: string) => Promise<boolean>;
}

/** What a request carries once its token checked out: the SDK's AuthInfo plus who it is. */
export interface Authenticated {
  authInfo: AuthInfo;
  /** The token's `sub`. */
  subject: string;
  /** Issuer + `sub`: what sessions are owned by and counted against. */
  owner: string;
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
  const verifier = createTokenVerifier({ issuer, audience: settings.audience, jwksUrl: settings.jwksUrl, log });
  // What a client should ask for when it has no token: everything this server may need.
  const challenges = createChallenges(metadataUrl, [...new Set([...requiredScopes, ...scopesSupported])].join(" "));
  const metadata = JSON.stringify({
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...new Set([...scopesSupported, ...requiredScopes])],
    bearer_methods_supported: ["header"],
    resource_name: "mcpkit",
  });
  const admit = (verified: VerifiedToken): Authenticated => ({
    subject: verified.subject,
    owner: ownerKey(issuer, verified.subject),
    authInfo: {
      token: verified.token,
      clientId: verified.clientId,
      scopes: verified.scopes,
      expiresAt: verified.expiresAt,
      resource: resourceUrl,
      extra: { subject: verified.subject },
    },
  });

  return {
    metadataPaths,
    metadataResponse: () =>
      new Response(metadata, {
        headers: {
          "content-type": "application/json",
          "cache-control": "max-age=300",
          // Public metadata: browser-based clients must be able to read it.
          ...readableBy(PUBLIC_CORS),
        },
      }),
    authenticate: (request) =>
      authenticate(request, {
        verifier,
        challenges,
        requiredScopes,
        log,
        admit,
        isSignInRevoked: settings.isSignInRevoked,
      }),
    insufficientScope: (needed, toolName, id) =>
      challenges.forbidden(
        needed,
        `calling ${toolName} needs the scope "${needed}", which this access token does not grant; request a token with that scope.`,
        id,
      ),
    warmUp: () => verifier.warmUp(),
  };
}

interface AuthenticateParts {
  verifier: TokenVerifier;
  challenges: Challenges;
  requiredScopes: string[];
  log: Logger;
  admit(verified: VerifiedToken): Authenticated;
  isSignInRevoked?: (signInId: string) => Promise<boolean>;
}

async function authenticate(
  request: Request,
  { verifier, challenges, requiredScopes, log, admit, isSignInRevoked }: AuthenticateParts,
): Promise<Authenticated | Response> {
  const header = request.headers.get("authorization");
  if (header === null || header.trim() === "") {
    return challenges.unauthorized(
      "this server requires an OAuth access token: send Authorization: Bearer <token>.",
      false,
    );
  }
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  if (!match)
    return challenges.unauthorized('the Authorization header must be "Bearer <token>" with a single token.', true);
  try {
    const verified = await verifier.verify(match[1]);
    if (verified.signInId && isSignInRevoked) {
      let revoked: boolean;
      try {
        revoked = await isSignInRevoked(verified.signInId);
      } catch (error) {
        // The state store is down: a valid token must not look invalid (clients would drop it and sign in again).
        // A store driver's words, which may quote its connection URL.
        log.warn("cannot check whether a sign-in was revoked", {
          error: scrubbed(error instanceof Error ? error.message : String(error)),
        });
        return challenges.unavailable("The authorization state is unavailable; try again shortly.");
      }
      if (revoked) return challenges.unauthorized("The access token's sign-in was revoked; sign in again.", true);
    }
    const missing = requiredScopes.filter((scope) => !isScopeGranted(verified.scopes, scope));
    if (missing.length > 0) {
      return challenges.forbidden(
        missing.join(" "),
        `this server requires the scope ${missing.map((s) => `"${s}"`).join(", ")}; request a token that includes it.`,
      );
    }
    return admit(verified);
  } catch (error) {
    if (error instanceof TokenRejected && error.unavailable) return challenges.unavailable(error.message);
    const description = error instanceof TokenRejected ? error.message : "The access token could not be verified.";
    log.debug("token refused", { reason: description });
    return challenges.unauthorized(description, true);
  }
}
