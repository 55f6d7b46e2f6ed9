/**
 * Database codes fail open, as boj-client does (docs/contracts/boj.md "Validation"): BOJ adds
 * databases, so a code outside the built-in list of 50 is still sent (paced, like every request).
 * When BOJ answers M181005E (unknown database), the error keeps seed 000's API_ERROR contract and
 * its message gains the closest code BOJ is known to have.
 */
import { closestName } from "../../core/did-you-mean.ts";
import { DATABASE_CODES } from "./catalog.ts";
import { BojError } from "./errors.ts";

const UNKNOWN_DATABASE_ID = "M181005E";

/** Codes known to exist: the built-in list, plus any the series catalogue has indexed. */
export type KnownDatabases = () => readonly string[];

export const builtInDatabases: KnownDatabases = () => DATABASE_CODES;

/**
 * Runs `work` (a request for database `db`); a BOJ M181005E it throws gets a hint naming the
 * nearest known code. Everything else passes through unchanged.
 */
export async function explainingUnknownDatabase<T>(
  db: string,
  known: KnownDatabases,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BojError && error.type === "API_ERROR" && error.details.message_id === UNKNOWN_DATABASE_ID)
      error.details.hint = unknownDatabaseHint(db, known());
    throw error;
  }
}

function unknownDatabaseHint(db: string, known: readonly string[]): string {
  const near = closestName(db, [...new Set(known)]);
  const quoted = JSON.stringify(db).slice(0, 80);
  return `BOJ has no database ${quoted}${near ? `; did you mean "${near}"?` : "."} Call boj_list_databases for the codes, or boj_search_series to find a series in any database`;
}
