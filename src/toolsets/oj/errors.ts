/**
 * How an HTTP error status from the craboj server becomes the text of an `isError` result
 * (docs/contracts/oj.md §5).
 */
import { askedToRetry } from "../../core/retry-after.ts";
import { type UpstreamResponse, bodyText, rawBodyText } from "./http.ts";

/** The fallback message keeps at most this many Unicode scalar values of the body. */
export const MAX_FALLBACK_SCALARS = 500;

/**
 * `[{status}] {title}: {detail}` when the body is RFC 7807 JSON with a `title` (each cut to 500
 * scalar values, with `…`); otherwise
 * `[{http status}] {body}` with the body cut to 500 scalar values. A body whose Content-Type is
 * not JSON is never parsed. The text is sanitized before it is cut, so a cut never leaves part of
 * the token behind (§7).
 */
export function formatApiError(response: UpstreamResponse): string {
  return `${upstreamMessage(response)}${retryAfterText(response)}`;
}

function upstreamMessage(response: UpstreamResponse): string {
  if (response.isJson) {
    const problem = parseProblemDetails(rawBodyText(response));
    if (problem) {
      const { text } = response.sanitize;
      // Each cut like the fallback's body, after sanitizing (a 1 MiB title was quoted whole).
      return text(
        `[${problem.status ?? response.status}] ${quotedUpstream(text(problem.title))}: ${quotedUpstream(text(problem.detail ?? ""))}`,
      );
    }
  }
  return `[${response.status}] ${takeScalars(bodyText(response), MAX_FALLBACK_SCALARS)}`;
}

/**
 * For a 429 or 503 that carried `Retry-After`, the wait it asked for and what to do: without it
 * a model calls again at once, which is what the server asked it not to do.
 */
function retryAfterText(response: UpstreamResponse): string {
  const seconds = response.retryAfterSeconds;
  if (seconds === undefined || (response.status !== 429 && response.status !== 503)) return "";
  return ` — ${askedToRetry("the craboj server", seconds)}: do not call this tool again before then.`;
}

interface ProblemDetails {
  status?: number;
  title: string;
  detail?: string;
}

/** The reference's `Rfc7807 { status: Option<u16>, title: Option<String>, detail: Option<String> }`, title required to use it. */
export function parseProblemDetails(text: string): ProblemDetails | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { status, title, detail } = value as Record<string, unknown>;
  if (typeof title !== "string") return undefined;
  const statusOk =
    status === undefined ||
    status === null ||
    (Number.isInteger(status) && (status as number) >= 0 && (status as number) <= 65535);
  const detailOk = detail === undefined || detail === null || typeof detail === "string";
  if (!statusOk || !detailOk) return undefined;
  return {
    title,
    status: typeof status === "number" ? status : undefined,
    detail: typeof detail === "string" ? detail : undefined,
  };
}

/**
 * An upstream value (or one of the caller's) as an error message quotes it: at most `limit`
 * scalar values, ending with `…` when cut, so that neither a 1 MiB RFC 7807 title nor a
 * 200,000-character id reaches the message whole.
 */
export function quotedUpstream(text: string, limit = MAX_FALLBACK_SCALARS): string {
  const kept = takeScalars(text, limit);
  return kept.length < text.length ? `${kept}…` : text;
}

/** The first `limit` Unicode scalar values (code points) of `text`, never splitting one. */
export function takeScalars(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let count = 0;
  let end = 0;
  for (const scalar of text) {
    if (count === limit) break;
    count++;
    end += scalar.length;
  }
  return text.slice(0, end);
}
