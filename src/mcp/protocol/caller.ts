/**
 * Who is calling, in both eras and on both transports: the scopes of the caller's token and its
 * owner, or nobody in particular (stdio, or HTTP without authorization).
 */

/** Who is calling, as far as the transport knows. */
export interface Caller {
  /** The token's scopes; undefined without authorization. */
  scopes: readonly string[] | undefined;
  /** The token's owner (`ownerKey`); binds a session or a `requestState` to its caller. */
  principal: string | undefined;
  /** Whom the per-subject call limit counts (`admission.ts`), where not the principal. */
  subject?: string;
}

/**
 * The caller of every request without a token (stdio, or HTTP without authorization), in both
 * eras: one frozen object, not one per request.
 */
export const ANONYMOUS: Caller = Object.freeze({ scopes: undefined, principal: undefined });

/**
 * The key a token's owner is known by. The issuer is part of it so two issuers' `sub` values
 * never meet, and `sub` alone (never `client_id`/`azp`) names the user, so a client id equal to
 * someone's `sub` cannot pass for them.
 */
export function ownerKey(issuer: string, subject: string): string {
  return JSON.stringify([issuer, subject]);
}
