/**
 * `POST /register`: RFC 7591 dynamic client registration for public clients (no secret).
 * Rate-limited per address and in total; a registration that never obtains a code expires.
 */
import * as v from "valibot";
import { stripControl } from "../../../core/text.ts";
import type { Deps } from "../context.ts";
import { randomToken } from "../crypto.ts";
import { OAuthFailure } from "../errors.ts";
import { type Route, jsonResponse, preflightRoute, readCapped } from "../http.ts";
import { redirectUriProblem } from "../redirect-uri.ts";
import { countRefusal } from "../refusals.ts";
import type { RegisteredClient } from "../store.ts";

/**
 * A registration is stored as sent for up to 24 h, and anyone may register (100 a minute in all):
 * at 16 KB that was 2.3 GB a day; real clients send well under 1 KB.
 */
const MAX_BODY_BYTES = 4 * 1024;

const requestSchema = v.looseObject({
  redirect_uris: v.pipe(v.array(v.string()), v.minLength(1), v.maxLength(10)),
  client_name: v.optional(v.string()),
  client_uri: v.optional(v.string()),
  token_endpoint_auth_method: v.optional(v.string()),
  grant_types: v.optional(v.array(v.string())),
  response_types: v.optional(v.array(v.string())),
  scope: v.optional(v.string()),
  software_id: v.optional(v.string()),
  software_version: v.optional(v.string()),
  application_type: v.optional(v.unknown()),
});

export function registerRoutes(deps: Deps): Route[] {
  return [
    {
      method: "POST",
      path: "/register",
      handle: (request, ctx) => register(deps, request, ctx.clientAddress ?? "unknown"),
    },
    { method: "OPTIONS", path: "/register", handle: preflightRoute() },
  ];
}

async function register(deps: Deps, request: Request, address: string): Promise<Response> {
  const wait = deps.registrations.admit(address);
  if (wait > 0) {
    countRefusal("/register", "address");
    deps.log.warn("client registration refused: rate limit", { address });
    throw new OAuthFailure(
      "invalid_request",
      `too many client registrations; retry in ${wait} s (clients register once and reuse their client_id).`,
      { status: 429, headers: { "retry-after": String(wait) } },
    );
  }
  const parsed = v.safeParse(
    requestSchema,
    parseJson(await readCapped(request, MAX_BODY_BYTES, "invalid_client_metadata")),
  );
  if (!parsed.success) {
    throw new OAuthFailure(
      "invalid_client_metadata",
      "redirect_uris must be an array of 1 to 10 URI strings; client_name, scope and the other fields, when present, strings.",
    );
  }
  const input = parsed.output;
  // MCP 2026-07-28 (SEP-837): clients state whether they are a "web" or a "native" application (OIDC DCR).
  const applicationType = input.application_type;
  if (applicationType !== undefined && applicationType !== "web" && applicationType !== "native") {
    throw new OAuthFailure("invalid_client_metadata", 'application_type must be "web" or "native".');
  }
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri, deps.config.publicUrl.origin);
    if (problem) throw new OAuthFailure("invalid_redirect_uri", problem);
  }
  const grantTypes = input.grant_types ?? ["authorization_code", "refresh_token"];
  if (grantTypes.some((grant) => grant !== "authorization_code" && grant !== "refresh_token")) {
    throw new OAuthFailure(
      "invalid_client_metadata",
      'grant_types may only contain "authorization_code" and "refresh_token".',
    );
  }
  if ((input.response_types ?? ["code"]).some((type) => type !== "code")) {
    throw new OAuthFailure("invalid_client_metadata", 'response_types may only contain "code".');
  }
  // Only a valid registration counts against the server-wide bound: it is about to write a row.
  const storeWait = deps.registrations.commit();
  if (storeWait > 0) {
    countRefusal("/register", "server");
    deps.log.warn("client registration refused: the server-wide registration bound is reached");
    throw new OAuthFailure(
      "invalid_request",
      `this server takes no more client registrations this minute; retry in ${storeWait} s.`,
      { status: 429, headers: { "retry-after": String(storeWait) } },
    );
  }
  const now = Date.now();
  const client: RegisteredClient = {
    client_id: `mcpkit-${randomToken(18)}`,
    client_id_issued_at: Math.floor(now / 1000),
    redirect_uris: input.redirect_uris,
    client_name: input.client_name ? stripControl(input.client_name).slice(0, 100) : undefined,
    client_uri: input.client_uri?.slice(0, 500),
    grant_types: grantTypes,
    response_types: ["code"],
    // Public clients only (RFC 7591 §3.2.1 lets the server replace a requested method).
    token_endpoint_auth_method: "none",
    scope: input.scope?.slice(0, 1000),
    software_id: input.software_id?.slice(0, 200),
    software_version: input.software_version?.slice(0, 100),
    application_type: applicationType,
  };
  await deps.store.putClient({
    clientId: client.client_id,
    metadata: client,
    createdAt: now,
    expiresAt: now + deps.config.unusedClientTtl * 1000,
  });
  deps.log.info("client registered", { client_id: client.client_id, name: client.client_name ?? "" });
  return jsonResponse(client, 201);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OAuthFailure(
      "invalid_client_metadata",
      "the registration request body must be a JSON object (RFC 7591 §3.1).",
    );
  }
}
