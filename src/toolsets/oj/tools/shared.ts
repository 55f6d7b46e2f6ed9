/** What every `oj` tool shares: the HTTP client, the token's presence, and how results are built. */
import { type ToolAnnotations, type ToolResult, errorResult, textResult } from "../../../core/tool.ts";
import { truncateOutput } from "../format.ts";
import type { OjHttpClient } from "../http.ts";

export interface OjDeps {
  http: OjHttpClient;
  hasToken: boolean;
}

export const SCOPE = "oj:read";

export function readOnly(title: string): ToolAnnotations {
  return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
}

/** Every text leaves through here, so the 102,400-byte cap (seed 003 S5.2) holds for all of them. */
export function success(markdown: string, structured: Record<string, unknown>): ToolResult {
  return textResult(truncateOutput(markdown), structured);
}

export function failure(message: string): ToolResult {
  return errorResult(truncateOutput(message));
}
