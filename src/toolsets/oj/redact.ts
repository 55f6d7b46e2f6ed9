/**
 * Keeps the bearer token out of everything the `oj` tools hand back (seed 003 S6.3, PRODUCT.md:
 * "secrets never in logs/messages"). mcpkit never writes the token into a message itself, but an
 * upstream or a proxy may echo the Authorization header in an error page or a JSON body, and
 * that text would reach the client verbatim: in an `isError` text, in a JSON-RPC error message
 * (valibot and JSON.parse quote what they received), or in structured content.
 */
import { ProtocolError, type ToolDefinition, type ToolResult } from "../../core/tool.ts";

export const REDACTED = "[redacted]";

/** Wraps a tool so that its results and protocol errors never carry `token`. */
export function withTokenRedacted(tool: ToolDefinition, token: string | undefined): ToolDefinition {
  if (token === undefined || token === "") return tool;
  const scrub = (text: string) => text.replaceAll(token, REDACTED);
  return {
    ...tool,
    async handler(args, context) {
      try {
        return scrubResult(await tool.handler(args, context), scrub);
      } catch (error) {
        if (error instanceof ProtocolError && error.message.includes(token)) {
          throw new ProtocolError(error.code, scrub(error.message), error.data);
        }
        throw error;
      }
    },
  };
}

function scrubResult(result: ToolResult, scrub: (text: string) => string): ToolResult {
  return {
    ...result,
    content: result.content.map((item) => (item.type === "text" ? { ...item, text: scrub(item.text) } : item)),
    ...(result.structuredContent === undefined ? {} : { structuredContent: scrubValue(result.structuredContent, scrub) as Record<string, unknown> }),
  };
}

function scrubValue(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, scrub));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubValue(item, scrub)]));
  }
  return value;
}
