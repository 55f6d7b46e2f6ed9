import { stripControl } from "./text.ts";

/**
 * A driver's or library's message with what could be a secret taken out: URL credentials
 * (`postgres://user:password@host`), `password=…`/`secret=…`/`token=…` pairs, bearer values and
 * long token-like strings. The logger also redacts the configured secrets; this covers the ones
 * it cannot know (a token a request carried).
 */
export function scrubbed(message: string): string {
  return stripControl(message)
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, "$1[redacted]@")
    .replace(
      /([\w-]*(?:pass(?:word)?|pwd|secret|token|key|authorization)[\w-]*\s*[=:]\s*)(?:(?:bearer|basic)\s+)?("[^"]*"|'[^']*'|\S+)/gi,
      "$1[redacted]",
    )
    .replace(/\b(bearer|basic)\s+[\w.~+/=-]+/gi, "$1 [redacted]")
    .replace(/[A-Za-z0-9_-]{32,}/g, "[redacted]")
    .slice(0, 500);
}
