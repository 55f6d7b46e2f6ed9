/**
 * boj_search_series's page cursors: where the next page starts (phase and offset, query.ts) and a
 * fingerprint of the arguments that decide the hits, so a cursor is only accepted with the same
 * query and filters. Nothing secret rides in it: it names a position in a public catalogue.
 * The hash is Bun's, not node:crypto's, whose loading cost a stdio start-up ~2 ms of CPU (issue 39).
 */
import { validationError } from "../errors.ts";
import type { SearchPosition } from "./query.ts";

/** Everything that decides which hits come in which order (the limit may change between pages). */
export function searchKey(parts: {
  words: string[];
  dbs?: readonly string[];
  frequency?: string;
  category?: string;
}): string {
  const canonical = JSON.stringify([
    parts.words,
    [...(parts.dbs ?? [])].sort(),
    parts.frequency ?? "",
    parts.category ?? "",
  ]);
  return new Bun.CryptoHasher("sha256").update(canonical).digest("base64url").slice(0, 16);
}

export function encodeCursor(key: string, position: SearchPosition): string {
  return Buffer.from(JSON.stringify({ k: key, p: position.phase, o: position.offset })).toString("base64url");
}

export function decodeCursor(key: string, cursor: string): SearchPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor.trim(), "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const { k, p, o } = (parsed ?? {}) as { k?: unknown; p?: unknown; o?: unknown };
  if (typeof k !== "string" || (p !== 0 && p !== 1) || typeof o !== "number" || !Number.isSafeInteger(o) || o < 0) {
    throw validationError(
      "cursor",
      `"cursor" is not a next_cursor of boj_search_series (it was changed or cut); pass next_cursor exactly as returned, or leave cursor out to start from the first page.`,
    );
  }
  if (k !== key) {
    throw validationError(
      "cursor",
      `"cursor" belongs to another search: repeat the query, db, frequency and category of the call that returned it (only cursor and limit may change), or leave cursor out to start over.`,
    );
  }
  return { phase: p, offset: o };
}
