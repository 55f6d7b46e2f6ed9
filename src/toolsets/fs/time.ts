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
  const utc = Date.UTC(year, month - 1, day, hour, minute, second) + millis - offset;
  // Date.UTC maps years 0..99 to 1900..1999; the regex allows them, so correct for it.
  return year < 100 ? new Date(utc).setUTCFullYear(year) : utc;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** UTC ISO 8601 with milliseconds only when there are some: `2025-12-01T00:00:00Z`, `…:05.250Z`. */
export function formatIso(ms: number): string {
  const text = new Date(Math.floor(ms)).toISOString();
  return text.endsWith(".000Z") ? `${text.slice(0, -5)}Z` : text;
}
