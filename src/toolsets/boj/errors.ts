/**
 * The four failure kinds of docs/contracts/boj.md "Errors" and their JSON-RPC mapping:
 * VALIDATION_ERROR → invalid_params; TRANSPORT_ERROR, DECODE_ERROR → internal_error;
 * API_ERROR → invalid_params for status 400, internal_error otherwise. `data` keeps the
 * diagnostic context (status, message_id, message).
 */
import { stripControl } from "../../core/text.ts";
import { ErrorCode, ProtocolError } from "../../core/tool.ts";
import { askedToRetry } from "../../core/retry-after.ts";
import { findMessage } from "./catalog.ts";

/** What an answer that is not BOJ's (a network failure, a redirect, a body BOJ cannot send) tells the user to check. */
export const BASE_URL_HINT = "check --boj-base-url (BOJ_BASE_URL)";

export type BojErrorType = "VALIDATION_ERROR" | "TRANSPORT_ERROR" | "DECODE_ERROR" | "API_ERROR";

export class BojError extends Error {
  /** Set when asking again cannot help (a host name that does not resolve): never retried. */
  final = false;

  constructor(
    readonly type: BojErrorType,
    message: string,
    readonly details: {
      status?: number;
      message_id?: string | null;
      field?: string;
      attempts?: number;
      /** BOJ's (or a gateway's) Retry-After on the last answer, in whole seconds. */
      retry_after_s?: number;
      /** What to do about it, from mcpkit's own knowledge (a database code BOJ does not know: the nearest one). */
      hint?: string;
    } = {},
  ) {
    super(message);
    this.name = "BojError";
  }
}

export const validationError = (field: string, message: string) => new BojError("VALIDATION_ERROR", message, { field });
export const transportError = (message: string) => new BojError("TRANSPORT_ERROR", message);
export const decodeError = (message: string) => new BojError("DECODE_ERROR", message);
export const apiError = (status: number, messageId: string | null, message: string) =>
  new BojError("API_ERROR", message, { status, message_id: messageId });

/** Whether the retry policy (docs/contracts/boj.md "Retries") allows another attempt after this failure. */
export function isRetryable(error: BojError): boolean {
  if (error.type === "TRANSPORT_ERROR") return !error.final;
  return error.type === "API_ERROR" && (error.details.status === 500 || error.details.status === 503);
}

/**
 * The JSON-RPC error for a BojError. Every text in it may carry upstream bytes (BOJ's MESSAGE, a
 * gateway's page), which `mcpkit call` prints to a terminal, so escape sequences are removed here.
 */
export function toProtocolError(error: BojError, tool: string): ProtocolError {
  const clean = new BojError(error.type, stripControl(error.message), {
    ...error.details,
    ...(error.details.message_id ? { message_id: stripControl(error.details.message_id) } : {}),
  });
  return protocolErrorOf(clean, tool);
}

function protocolErrorOf(error: BojError, tool: string): ProtocolError {
  switch (error.type) {
    case "VALIDATION_ERROR":
      return new ProtocolError(ErrorCode.InvalidParams, `Invalid arguments for ${tool}: ${error.message}`, {
        error_type: error.type,
        field: error.details.field ?? null,
        message: error.message,
      });
    case "TRANSPORT_ERROR":
      return new ProtocolError(
        ErrorCode.InternalError,
        `Transport error while calling the BOJ API${attemptsText(error)}: ${error.message}${retryAfterText(error, tool)}`,
        {
          error_type: error.type,
          message: error.message,
          attempts: error.details.attempts ?? null,
          ...retryAfterData(error),
        },
      );
    case "DECODE_ERROR":
      return new ProtocolError(ErrorCode.InternalError, `Failed to decode the BOJ API response: ${error.message}`, {
        error_type: error.type,
        message: error.message,
      });
    case "API_ERROR": {
      const status = error.details.status ?? 0;
      const messageId = error.details.message_id ?? null;
      const hint =
        error.details.hint ??
        findMessage(messageId)?.note ??
        // A 400/414 without BOJ's JSON comes from in front of the API; over-long URLs are the known cause.
        (!messageId && (status === 400 || status === 414)
          ? "not a BOJ message: the request URL may be too long; send fewer or shorter codes per call, e.g. batches of 100"
          : status === 429
            ? "too many requests: BOJ forbids high-frequency access; wait before calling again, and raise --boj-min-interval-ms if this repeats"
            : undefined);
      const label = messageId ? `${status} ${messageId}` : `HTTP ${status}`;
      const text = `The BOJ API answered ${label}: ${error.message}${hint ? ` (${hint})` : ""}${retryAfterText(error, tool)}`;
      return new ProtocolError(status === 400 ? ErrorCode.InvalidParams : ErrorCode.InternalError, text, {
        error_type: error.type,
        status,
        message_id: messageId,
        message: error.message,
        ...retryAfterData(error),
      });
    }
  }
}

/**
 * What to do about a Retry-After: " — BOJ asked to retry after 3600 s (about 1 h) (Retry-After):
 * do not call boj_get_data_code again before then; BOJ forbids high-frequency access."
 */
function retryAfterText(error: BojError, tool: string): string {
  const seconds = error.details.retry_after_s;
  if (seconds === undefined) return "";
  return ` — ${askedToRetry("BOJ", seconds)}: do not call ${tool} again before then; BOJ forbids high-frequency access.`;
}

function retryAfterData(error: BojError): { retry_after_s?: number } {
  const seconds = error.details.retry_after_s;
  return seconds === undefined ? {} : { retry_after_s: seconds };
}

function attemptsText(error: BojError): string {
  const attempts = error.details.attempts;
  return attempts && attempts > 1 ? ` (${attempts} attempts)` : "";
}
