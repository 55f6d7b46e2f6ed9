/**
 * mcpkit's token-signing keys: ES256, stored sealed in the state store so every instance signs
 * with a key the others publish. A key signs for `rotation` seconds; after that a new one takes
 * over and the old one stays in the JWKS until every token it signed has expired.
 */
import * as jose from "jose";
import type { Keyring } from "./crypto.ts";
import type { SigningKeyRecord, Store } from "./store.ts";

export const SIGNING_ALG = "ES256";
/** How long an instance trusts its cached key list before asking the store again. */
const CACHE_MS = 30_000;
/**
 * A new key is published this long before it signs, so resource servers holding a cached JWKS
 * (the JWKS document says max-age=60) know it before the first token signed with it arrives.
 */
export const PUBLISH_LEAD_MS = 60_000;

export interface KeyManager {
  /** The key to sign with now (creating one when none is current). */
  signingKey(): Promise<{ kid: string; key: CryptoKey }>;
  /** The public keys for the JWKS document. */
  jwks(): Promise<{ keys: jose.JWK[] }>;
  /** Starts a new signing key now; the previous ones stay published. */
  rotate(): Promise<string>;
}

export function createKeyManager(
  store: Store,
  keyring: Keyring,
  rotationSeconds: number,
  maxTokenSeconds: number,
): KeyManager {
  let cached: { at: number; keys: SigningKeyRecord[] } | undefined;
  const privateKeys = new Map<string, Promise<CryptoKey>>();

  const load = async (fresh = false) => {
    const now = Date.now();
    if (!fresh && cached && now - cached.at < CACHE_MS) return cached.keys;
    cached = { at: now, keys: await store.listSigningKeys(now) };
    return cached.keys;
  };

  const create = async () => {
    const { publicKey, privateKey } = await jose.generateKeyPair(SIGNING_ALG, { extractable: true });
    const publicJwk = await jose.exportJWK(publicKey);
    const kid = await jose.calculateJwkThumbprint(publicJwk);
    const now = Date.now();
    const signUntil = now + rotationSeconds * 1000;
    await store.putSigningKey({
      kid,
      publicJwk: JSON.stringify({ ...publicJwk, kid, alg: SIGNING_ALG, use: "sig" }),
      sealedPrivateJwk: keyring.seal(JSON.stringify(await jose.exportJWK(privateKey)), `signing-key:${kid}`),
      createdAt: now,
      signUntil,
      // Tokens signed at the last moment live maxTokenSeconds more; a minute of slack for clocks.
      publishUntil: signUntil + (maxTokenSeconds + 60) * 1000,
    });
    cached = undefined;
    return kid;
  };

  /** The newest key already published for the lead time; a brand-new install has none, so its newest. */
  const current = (keys: SigningKeyRecord[]) => {
    const now = Date.now();
    const usable = keys.filter((key) => key.signUntil > now);
    return usable.find((key) => key.createdAt <= now - PUBLISH_LEAD_MS) ?? usable[0];
  };
  /** Whether the next key must be published now so it has its lead time before the current one stops. */
  const successorDue = (keys: SigningKeyRecord[]) =>
    !keys.some((key) => key.signUntil > Date.now() + PUBLISH_LEAD_MS * 2);

  return {
    async signingKey() {
      let record = current(await load());
      if (!record) {
        // Another instance may have just made one; only create when the store has none either.
        record = current(await load(true));
        if (!record) {
          await create();
          record = current(await load(true));
        }
      }
      if (!record) throw new Error("no signing key could be created");
      if (successorDue(await load())) await create();
      const { kid, sealedPrivateJwk } = record;
      let key = privateKeys.get(kid);
      if (!key) {
        key = jose.importJWK(
          JSON.parse(keyring.open(sealedPrivateJwk, `signing-key:${kid}`)) as jose.JWK,
          SIGNING_ALG,
        ) as Promise<CryptoKey>;
        privateKeys.set(kid, key);
      }
      return { kid, key: await key };
    },
    async jwks() {
      // Always from the store: a key another instance just created must be verifiable at once.
      return { keys: (await load(true)).map((key) => JSON.parse(key.publicJwk) as jose.JWK) };
    },
    rotate: create,
  };
}
