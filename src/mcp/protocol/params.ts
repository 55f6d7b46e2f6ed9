/**
 * Checks of a request's `params`, by hand rather than through a schema library: a handful of
 * fields per method, each refused with -32602 and a sentence naming the field (a malformed
 * request is the client's mistake, never an internal error).
 */
import { ErrorCode, ProtocolError } from "../../core/tool.ts";

export type Params = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

function invalid(method: string, field: string, expected: string, value: unknown): ProtocolError {
  const got = value === undefined ? "it is missing" : `got ${describe(value)}`;
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid ${method} request: "${field}": expected ${expected}, ${got}.`,
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireString(params: Params, key: string, method: string, field = key): string {
  const value = params[key];
  if (typeof value !== "string") throw invalid(method, field, "a string", value);
  return value;
}

export function optionalString(params: Params, key: string, method: string, field = key): string | undefined {
  const value = params[key];
  if (value !== undefined && typeof value !== "string") throw invalid(method, field, "a string", value);
  return value;
}

export function requireObject(params: Params, key: string, method: string, field = key): Params {
  const value = params[key];
  if (!isRecord(value)) throw invalid(method, field, "an object", value);
  return value;
}

export function optionalRecord(params: Params, key: string, method: string, field = key): Params | undefined {
  const value = params[key];
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw invalid(method, field, "an object", value);
  return value;
}
