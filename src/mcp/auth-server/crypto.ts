/**
 * The secrets the authorization server derives from `--state-key`, and the small primitives it
 * uses: random tokens, hashes for tokens at rest, AES-GCM for values that must come back
 * (upstream tokens, signing keys), HMAC for browser cookies and CSRF tokens.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";

/** 256 random bits, base64url: codes, refresh tokens, states, CSRF nonces. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/**
 * Tokens are stored by their SHA-256 only, so a copy of the database does not hold a usable code
 * or refresh token; they are 256-bit random, so an unsalted hash cannot be searched backwards.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/** The RFC 7636 S256 transform. */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Reads a 32-byte key given as 64 hex digits or base64/base64url. */
export function parseStateKey(text: string): Buffer {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (bytes.length !== 32) {
    throw new Error(
      "--state-key must be 32 bytes written as 64 hex digits or base64; generate one with `openssl rand -hex 32`.",
    );
  }
  return bytes;
}

export interface Keyring {
  seal(plain: string, context: string): string;
  /** Throws when the value was not sealed with this key and context (tampered, or another key). */
  open(sealed: string, context: string): string;
  sign(value: string, context: string): string;
  verify(value: string, signature: string, context: string): boolean;
}

/** Separate subkeys for encryption and signing, so neither use can be turned against the other. */
export function createKeyring(stateKey: Buffer): Keyring {
  const derive = (label: string) =>
    Buffer.from(hkdfSync("sha256", stateKey, Buffer.alloc(0), `mcpkit auth-server ${label}`, 32));
  const encryption = derive("aes-256-gcm");
  const signing = derive("hmac-sha256");
  const mac = (value: string, context: string) =>
    createHmac("sha256", signing).update(`${context}\0${value}`).digest("base64url");
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", encryption, iv);
      // The context is authenticated: a value sealed as one kind of secret cannot be opened as another.
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
    },
    open(sealed, context) {
      if (!sealed.startsWith("v1.")) throw new Error("unknown sealed-value format");
      const raw = Buffer.from(sealed.slice(3), "base64url");
      const decipher = createDecipheriv("aes-256-gcm", encryption, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    },
    sign: mac,
    verify: (value, signature, context) => safeEqual(mac(value, context), signature),
  };
}
