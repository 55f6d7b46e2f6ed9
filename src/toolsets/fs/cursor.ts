/**
 * Opaque, tamper-evident page cursors.
 *
 * A cursor carries the position (sort key) of the last entry returned, a fingerprint of the query
 * it belongs to and the time the first page started, signed with HMAC-SHA256. The next page is
 * "entries strictly after this position", so an unchanged tree pages through every entry exactly
 * once, and a changing tree can never return an entry twice (see `search.ts` for the `since` rule).
 *
 * Hashes and HMACs are Bun's (`Bun.CryptoHasher`, the global `crypto`), not node:crypto's: loading
 * that module cost a stdio start-up ~2 ms of CPU (issue 39); the bytes are the same.
 */
import { hostname } from "node:os";
import type { Position } from "./collector.ts";

export interface CursorState {
  position: Position;
  /** When the first page's walk started (ms since epoch). */
  since: number;
}

export type DecodedCursor = { ok: true; state: CursorState } | { ok: false; message: string };

const VERSION = 1;

export const CURSOR_TAMPERED =
  "Invalid cursor: it was modified, is truncated, or was issued by another server. Call again without 'cursor' to start from the first page.";
export const CURSOR_OTHER_QUERY =
  "Invalid cursor: it belongs to a different query. Repeat exactly the arguments of the call that returned it (only 'cursor' changes), or call again without 'cursor' to start over.";

export class CursorCodec {
  constructor(private readonly key: Uint8Array) {}

  encode(query: string, state: CursorState): string {
    const payload = Buffer.from(
      JSON.stringify({
        v: VERSION,
        q: fingerprint(query),
        t: state.position.time,
        p: state.position.path,
        s: state.since,
      }),
    ).toString("base64url");
    return `${payload}.${this.sign(payload)}`;
  }

  decode(query: string, cursor: string): DecodedCursor {
    const dot = cursor.indexOf(".");
    if (dot <= 0) return { ok: false, message: CURSOR_TAMPERED };
    const payload = cursor.slice(0, dot);
    // Compared as text: base64url decoding would ignore stray trailing characters.
    const given = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.sign(payload));
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
      return { ok: false, message: CURSOR_TAMPERED };
    let data: { v?: unknown; q?: unknown; t?: unknown; p?: unknown; s?: unknown };
    try {
      data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return { ok: false, message: CURSOR_TAMPERED };
    }
    const timeOk = data.t === null || (typeof data.t === "number" && Number.isFinite(data.t));
    if (data.v !== VERSION || typeof data.p !== "string" || !timeOk || typeof data.s !== "number") {
      return { ok: false, message: CURSOR_TAMPERED };
    }
    if (data.q !== fingerprint(query)) return { ok: false, message: CURSOR_OTHER_QUERY };
    return { ok: true, state: { position: { time: data.t as number | null, path: data.p }, since: data.s } };
  }

  private sign(payload: string): string {
    return new Bun.CryptoHasher("sha256", this.key).update(payload).digest().subarray(0, 18).toString("base64url");
  }
}

function fingerprint(query: string): string {
  return new Bun.CryptoHasher("sha256").update(query).digest().subarray(0, 12).toString("base64url");
}

/** The key for one process: from the configured secret when there is one, else random. */
export function cursorKey(secret: string | undefined, stable: boolean): Uint8Array {
  if (secret !== undefined) return new Bun.CryptoHasher("sha256").update(`mcpkit fs cursor\0${secret}`).digest();
  // `mcpkit call` is one process per page, so its cursors must survive the process: derive the
  // key from the machine and user. Forging one only lets a caller skip ahead in its own results
  // (containment is checked on every call), so this protects against accidental edits.
  if (stable) {
    return new Bun.CryptoHasher("sha256")
      .update(`mcpkit fs cursor\0${hostname()}\0${process.getuid?.() ?? ""}`)
      .digest();
  }
  return crypto.getRandomValues(new Uint8Array(32));
}
