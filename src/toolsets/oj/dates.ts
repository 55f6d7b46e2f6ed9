/**
 * "Today" for a LeetCode domain. The daily challenge switches at 00:00 UTC on leetcode.com and at
 * 00:00 UTC+8 on leetcode.cn; the reference server always sent the UTC date, so between 16:00 and
 * 24:00 UTC it fetched yesterday's CN problem (docs/contracts/oj.md §4.1). The host's time zone never
 * matters: the date comes from a fixed offset.
 */
export type Domain = "com" | "cn";

const OFFSET_HOURS: Record<Domain, number> = { com: 0, cn: 8 };

export function todayFor(domain: Domain, now: Date = new Date()): string {
  return new Date(now.getTime() + OFFSET_HOURS[domain] * 3_600_000).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` naming a real calendar day (the reference parsed it with chrono's `NaiveDate`). */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return month >= 1 && month <= 12 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
