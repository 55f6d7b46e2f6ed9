/** ISO 8601 date-times in and out of `fs.search_by_time`. */

// Date, time, optional fraction and a mandatory offset; the schema already checked the general shape.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2})?)$/;

/**
 * Milliseconds since the epoch for an ISO 8601 date-time with offset, or `undefined` when the text is
 * not one or names a day that does not exist (2025-02-30). Parsed by hand because engines differ on
 * the forms `Date.parse` accepts (space separator, `+0900`, nine fraction digits).
 */
export function parseDateTime(text: string): number | undefined {
  const parts = DATE_TIME.exec(text);
  if (!parts) return undefined;
  const [, y, mo, d, h, mi, s, fraction = "", zulu, sign, offH = "00", offM = "00"] = parts;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Number(offH) > 23 || Number(offM) > 59) return undefined;
  const millis = fraction === "" ? 0 : Number(`0.${fraction}`) * 1000;
  const offset = zulu ? 0 : (sign === "-" ? -1 : 1) * (Number(offH) * 60 + Number(offM)) * 60_000;
  // The offset is applied last: done before the year is set, it could carry the day into the wrong year.
  return utcTime(year, month - 1, day, hour, minute, second) + millis - offset;
}

/**
 * Date.UTC without its mapping of years 0..99 to 1900..1999 (the regex allows them, and 0000 is a
 * leap year where 1900 is not).
 */
function utcTime(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date.setUTCHours(hour, minute, second, 0);
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcTime(year, month, 0)).getUTCDate();
}

/** The first and last instants RFC 3339 can write (years 0000 to 9999). */
const EARLIEST = utcTime(0, 0, 1);
const LATEST = utcTime(10_000, 0, 1) - 1;

/**
 * UTC ISO 8601 with milliseconds only when there are some: `2025-12-01T00:00:00Z`, `…:05.250Z`.
 * A time outside years 0000–9999 (a file system can store one) is written as the nearest that
 * RFC 3339 can: toISOString wrote "+020983-…" for it, which a client's output-schema check refuses
 * (the whole call failed), and threw past year 275,760, which failed the whole search.
 */
export function formatIso(ms: number): string {
  const within = Number.isNaN(ms) ? EARLIEST : Math.min(Math.max(Math.floor(ms), EARLIEST), LATEST);
  const text = new Date(within).toISOString();
  return text.endsWith(".000Z") ? `${text.slice(0, -5)}Z` : text;
}
