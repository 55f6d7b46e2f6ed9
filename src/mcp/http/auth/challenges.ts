/**
 * The refusals a resource server sends (RFC 6750 §3, MCP 2025-11-25 Authorization): 401 with a
 * `WWW-Authenticate: Bearer` challenge naming the metadata and the scopes to ask for, and 403
 * `insufficient_scope` naming the missing one. Bodies are JSON-RPC errors with code -32001
 * (docs/contracts/http.md) so clients that only read the body still see why. No token is ever echoed.
 */
import { ErrorCode } from "../../../core/tool.ts";
import { type JsonRpcId, RETRY_AFTER_SECONDS, jsonRpcErrorResponse } from "../jsonrpc-errors.ts";

export interface Challenges {
  /** 401; `tokenSent` adds `error="invalid_token"` and the description (RFC 6750 §3.1). */
  unauthorized(description: string, tokenSent: boolean): Response;
  /** 403 `insufficient_scope` for `needed`. */
  forbidden(needed: string, description: string, id?: JsonRpcId): Response;
  /** 503: the token could not be checked (keys unreachable); it may well be fine. */
  unavailable(description: string): Response;
}

/**
 * RFC 6750 §3 allows only %x20-21 / %x23-5B / %x5D-7E inside these values: no `"` and no `\`,
 * so quotes become apostrophes instead of being escaped (naive client parsers stop at `\"`).
 */
export function challengeValue(value: string): string {
  return value.replaceAll('"', "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "");
}

export function createChallenges(metadataUrl: string, challengeScope: string): Challenges {
  const challenge = (params: Record<string, string>) =>
    `Bearer ${Object.entries({ resource_metadata: metadataUrl, ...params })
      .map(([key, value]) => `${key}="${challengeValue(value)}"`)
      .join(", ")}`;

  return {
    unauthorized: (description, tokenSent) =>
      jsonRpcErrorResponse(401, ErrorCode.Unauthorized, `Unauthorized: ${description}`, {
        headers: {
          "www-authenticate": challenge(
            tokenSent
              ? { scope: challengeScope, error: "invalid_token", error_description: description }
              : { scope: challengeScope },
          ),
        },
      }),
    forbidden: (needed, description, id = null) =>
      jsonRpcErrorResponse(403, ErrorCode.Unauthorized, `Forbidden: ${description}`, {
        id,
        headers: {
          "www-authenticate": challenge({ error: "insufficient_scope", scope: needed, error_description: description }),
        },
        data: { requiredScope: needed },
      }),
    unavailable: (description) =>
      jsonRpcErrorResponse(503, ErrorCode.InternalError, `Service Unavailable: ${description}`, {
        headers: { "retry-after": String(RETRY_AFTER_SECONDS) },
      }),
  };
}
