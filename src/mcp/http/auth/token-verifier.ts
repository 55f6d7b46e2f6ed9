/**
 * Verifies JWT access tokens the way an OAuth 2.1 resource server must (MCP 2025-11-25
 * "Token Handling", RFC 8707 audience): signature against the issuer's JWKS, an asymmetric
 * `alg` from a fixed allow-list, `iss`, `aud`, `exp`, `nbf`, with a small clock skew.
 *
 * Messages produced here go to clients in `error_description`, so they name the failed check
 * and never echo the token or its claims.
 */
import * as jose from "jose";
import type { Logger } from "../../../core/log.ts";
import { bufferedAnswer } from "../../../core/read-at-most.ts";
import { scrubbed } from "../../../core/scrubbed.ts";
import { upstreamFetch } from "../../../core/telemetry/index.ts";

/**
 * Asymmetric algorithms only. `none` is never accepted, and no HMAC (`HS*`) either: with a
 * public JWKS an HMAC "signature" could be forged using the public key as the shared secret.
 */
export const ALLOWED_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Tolerated clock difference between this server and the authorization server. */
export const CLOCK_SKEW_SECONDS = 30;

/** Unknown `kid`s trigger at most one JWKS refetch per this interval (key rotation without a DoS lever). */
export const JWKS_COOLDOWN_MS = 1000;
/**
 * After a failed JWKS or metadata fetch, no new attempt for this long: jose retries on every
 * request while it has no fresh keys, so without this a failing issuer would get one fetch per
 * incoming request (anyone can send well-formed tokens). Requests meanwhile get 503.
 */
export const FETCH_FAILURE_BACKOFF_MS = 5000;
const JWKS_MAX_AGE_MS = 10 * 60 * 1000;
const FETCH_TIMEOUT_MS = 5000;
/**
 * The most of the issuer's metadata or JWKS read (real ones hold a few kilobytes): an issuer
 * that sends more, or never stops, is a failed fetch, not memory the server gives away.
 */
export const ISSUER_DOCUMENT_MAX_BYTES = 1024 * 1024;

/** An issuer document (metadata or JWKS) read into memory, at most ISSUER_DOCUMENT_MAX_BYTES; larger throws. */
const issuerDocument = (response: Response): Promise<Response> =>
  bufferedAnswer(
    response,
    ISSUER_DOCUMENT_MAX_BYTES,
    () => new Error(`the document is larger than ${ISSUER_DOCUMENT_MAX_BYTES} bytes`),
  );

/**
 * Sessions and per-user limits key on `sub`; a token without one (often a client-credentials
 * token) would otherwise have to borrow `client_id`, which lives in another namespace.
 */
export const NO_SUBJECT =
  "The access token has no subject (sub): this server ties sessions to the user named in sub and does not accept client_id or azp in its place; request a token issued for a user.";

export interface VerifiedToken {
  token: string;
  /** The `sub` claim: who the token speaks for. Never stands in for `client_id`, nor they for it. */
  subject: string;
  clientId: string;
  scopes: string[];
  expiresAt?: number;
  /** The `sid` claim: the sign-in the token belongs to, when its issuer names one. */
  signInId?: string;
}

/** Why a token was refused. `unavailable` means we could not check it (JWKS unreachable), not that it is bad. */
export class TokenRejected extends Error {
  constructor(
    message: string,
    readonly unavailable = false,
  ) {
    super(message);
    this.name = "TokenRejected";
  }
}

export interface TokenVerifierSettings {
  issuer: string;
  audience: string[];
  jwksUrl?: string;
  log: Logger;
}

export interface TokenVerifier {
  verify(token: string): Promise<VerifiedToken>;
  /** Fetches the issuer metadata and keys ahead of the first request; failures are only logged. */
  warmUp(): Promise<void>;
}

/**
 * A token marking as critical (`crit`, RFC 7515 §4.1.11) an extension this verifier does not
 * implement. jose implements `b64` only, and refuses any other with JOSENotSupported, the error it
 * also uses for algorithms it cannot run; told apart here, the client reads which check failed.
 */
export const UNKNOWN_CRITICAL =
  "The access token marks a header parameter as critical (crit) that this server does not implement; issue it without crit.";

/**
 * Refuses what cannot be a token (not a JWT, an algorithm we never accept, a critical extension
 * we do not implement) without any network.
 */
function refuseMalformed(token: string): void {
  let header: jose.ProtectedHeaderParameters;
  try {
    header = jose.decodeProtectedHeader(token);
    jose.decodeJwt(token);
  } catch {
    throw new TokenRejected(explain(new jose.errors.JWTInvalid("malformed")));
  }
  if (!header.alg || !ALLOWED_ALGORITHMS.includes(header.alg)) {
    throw new TokenRejected(explain(new jose.errors.JOSEAlgNotAllowed("alg")));
  }
  if (Array.isArray(header.crit) && header.crit.some((name) => name !== "b64"))
    throw new TokenRejected(UNKNOWN_CRITICAL);
}

export function createTokenVerifier({ issuer, audience, jwksUrl, log }: TokenVerifierSettings): TokenVerifier {
  let keySet: Promise<ReturnType<typeof jose.createRemoteJWKSet>> | undefined;
  const backoff = createFetchBackoff(FETCH_FAILURE_BACKOFF_MS);
  let discoveryRetryAt = 0;

  const keys = () => {
    if (!keySet && Date.now() < discoveryRetryAt) {
      return Promise.reject(new Error("discovering the issuer's keys failed moments ago; will retry shortly"));
    }
    keySet ??= (async () => {
      const url = jwksUrl ?? (await discoverJwksUrl(issuer));
      log.debug("using JWKS", { url });
      return jose.createRemoteJWKSet(new URL(url), {
        cooldownDuration: JWKS_COOLDOWN_MS,
        cacheMaxAge: JWKS_MAX_AGE_MS,
        timeoutDuration: FETCH_TIMEOUT_MS,
        [jose.customFetch]: backoff.fetch,
      });
    })().catch((error: unknown) => {
      keySet = undefined; // try discovery again, but not before the backoff is over
      discoveryRetryAt = Date.now() + FETCH_FAILURE_BACKOFF_MS;
      throw error;
    });
    return keySet;
  };

  return {
    async verify(token) {
      // The token is never logged, so it is not registered with log.redact either: one entry per
      // token ever seen would grow without bound on a long-running server.
      // Refuse what cannot be a token before touching the network, so a broken token is a 401
      // even while the issuer is unreachable.
      refuseMalformed(token);
      let getKey: Awaited<ReturnType<typeof keys>>;
      try {
        getKey = await keys();
      } catch (error) {
        log.warn("cannot load the authorization server's keys", { issuer, error: describe(error) });
        throw new TokenRejected(
          "The authorization server's signing keys could not be loaded; try again shortly.",
          true,
        );
      }
      try {
        const { payload } = await jose.jwtVerify(token, getKey, {
          issuer,
          audience,
          algorithms: ALLOWED_ALGORITHMS,
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ["exp"],
        });
        const subject = stringClaim(payload.sub);
        if (!subject) throw new TokenRejected(NO_SUBJECT);
        const clientId = stringClaim(payload.client_id) ?? stringClaim(payload.azp) ?? "";
        const signInId = stringClaim(payload.sid);
        return { token, subject, clientId, scopes: scopesOf(payload), expiresAt: payload.exp, signInId };
      } catch (error) {
        if (error instanceof TokenRejected) throw error;
        const unavailable = isKeyFetchFailure(error);
        if (unavailable) log.warn("cannot load the authorization server's keys", { issuer, error: describe(error) });
        throw new TokenRejected(explain(error), unavailable);
      }
    },
    async warmUp() {
      try {
        const getKey = await keys();
        await getKey.reload();
      } catch (error) {
        log.warn("authorization server not reachable yet; will retry on the first request", {
          issuer,
          error: describe(error),
        });
      }
    },
  };
}

/** OAuth scopes from `scope` (RFC 9068, space-separated) or `scp` (array or string, as some IdPs send). */
function scopesOf(payload: jose.JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === "string") return raw.split(/\s+/).filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((item): item is string => typeof item === "string");
  return [];
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * The issuer's metadata names its JWKS: OpenID Connect discovery first, then RFC 8414
 * (path-inserted for issuers with a path), as MCP clients try them.
 */
async function discoverJwksUrl(issuer: string): Promise<string> {
  const base = new URL(issuer);
  const path = base.pathname.replace(/\/+$/, "");
  const candidates = [
    `${base.origin}${path}/.well-known/openid-configuration`,
    `${base.origin}/.well-known/oauth-authorization-server${path}`,
    `${base.origin}/.well-known/openid-configuration${path}`,
  ];
  // "URL answered HTTP 404", not "URL: HTTP 404": the log scrubs "…authorization-server: X" as a secret.
  const failures: string[] = [];
  for (const url of candidates) {
    try {
      const response = await upstreamFetch(url, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        headers: { accept: "application/json" },
      });
      if (!response.ok) {
        failures.push(`${url} answered HTTP ${response.status}`);
        continue;
      }
      const metadata = (await (await issuerDocument(response)).json()) as { jwks_uri?: unknown };
      if (typeof metadata.jwks_uri === "string") return metadata.jwks_uri;
      failures.push(`${url} names no jwks_uri`);
    } catch (error) {
      failures.push(`${url} failed (${describe(error)})`);
    }
  }
  throw new Error(`no jwks_uri found (${failures.join("; ")}); pass --jwks-url`);
}

/**
 * The JWKS fetch handed to jose: after a failure (network error, non-200, or a
 * body that is not JSON), refuses without touching the network until `backoffMs` have passed.
 */
function createFetchBackoff(backoffMs: number): { fetch: typeof fetch } {
  let retryAt = 0;
  const failed = () => {
    retryAt = Date.now() + backoffMs;
  };
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (Date.now() < retryAt) {
      throw new Error(
        `the authorization server failed moments ago; not asking again for ${Math.ceil((retryAt - Date.now()) / 1000)} s`,
      );
    }
    let response: Response;
    try {
      response = await upstreamFetch(input instanceof Request ? input.url : input, init);
    } catch (error) {
      failed();
      throw error;
    }
    if (response.status !== 200) {
      failed();
      return response;
    }
    let document: Response;
    try {
      document = await issuerDocument(response);
    } catch (error) {
      failed();
      throw error;
    }
    // A body that is not JSON fails too: jose reads it (and says so), the backoff starts now.
    if (
      !(await document
        .clone()
        .json()
        .then(
          () => true,
          () => false,
        ))
    )
      failed();
    return document;
  };
  return { fetch: guarded as typeof fetch };
}

/** JWKS timeouts, bad JWKS documents and network errors (jose lets fetch errors through unwrapped). */
function isKeyFetchFailure(error: unknown): boolean {
  if (error instanceof jose.errors.JWKSTimeout || error instanceof jose.errors.JWKSInvalid) return true;
  if (!(error instanceof jose.errors.JOSEError)) return true;
  return error.code === "ERR_JOSE_GENERIC" && /JSON Web Key Set/i.test(error.message);
}

/** One sentence per failed check; no claim values, no token. */
function explain(error: unknown): string {
  if (error instanceof jose.errors.JWTExpired) return "The access token has expired; obtain a new one.";
  if (error instanceof jose.errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "iss":
        return "The access token was issued by a different authorization server than this server trusts.";
      case "aud":
        return "The access token was not issued for this server (aud does not name this resource); request it with the resource parameter set to this server's URL.";
      case "nbf":
        return "The access token is not valid yet (nbf is in the future).";
      case "exp":
        return "The access token has no expiry (exp); this server only accepts expiring tokens.";
      default:
        return `The access token's ${error.claim} claim is invalid.`;
    }
  }
  // JOSENotSupported from jose's unknown-`crit` check never gets here: refuseMalformed answers it.
  if (error instanceof jose.errors.JOSEAlgNotAllowed || error instanceof jose.errors.JOSENotSupported) {
    return `The access token's signing algorithm is not accepted; use one of ${ALLOWED_ALGORITHMS.join(", ")}.`;
  }
  if (error instanceof jose.errors.JWKSNoMatchingKey)
    return "The access token was signed with a key the authorization server does not publish.";
  if (error instanceof jose.errors.JWSSignatureVerificationFailed) return "The access token's signature is invalid.";
  if (error instanceof jose.errors.JWKSMultipleMatchingKeys)
    return "The access token does not say which signing key it uses (kid).";
  if (isKeyFetchFailure(error))
    return "The authorization server's signing keys could not be loaded; try again shortly.";
  return "The access token is malformed: expected a signed JWT (three base64url parts).";
}

/** A fetch's or jose's words for the log, with whatever could be a secret taken out (a URL's credentials, a token). */
function describe(error: unknown): string {
  return scrubbed(error instanceof Error ? error.message : String(error));
}
