/**
 * The protocol revisions mcpkit speaks, in two eras (MCP 2026-07-28 "Versioning and
 * Compatibility"): the legacy era opens with `initialize` and may hold a session (served by
 * mcpkit's own session engine, `src/mcp/legacy/session.ts`, on stdio and over HTTP); the modern era carries its version, capabilities and client identity
 * in every request's `_meta` and is served statelessly by mcpkit's own code (`src/mcp/modern/`).
 * This file imports nothing, so the modern path can know the legacy versions without loading the SDK.
 */

/** Modern revisions, newest first. */
export const MODERN_VERSIONS = ["2026-07-28"] as const;

/**
 * Legacy revisions the SDK negotiates at `initialize` (its SUPPORTED_PROTOCOL_VERSIONS; a test
 * keeps the two lists equal).
 */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const;

/** What `initialize` answers a client asking for a version it does not know (the SDK's LATEST_PROTOCOL_VERSION). */
export const LATEST_LEGACY_VERSION: (typeof LEGACY_VERSIONS)[number] = LEGACY_VERSIONS[0];

/** What `server/discover` and UnsupportedProtocolVersionError list: both eras, newest first. */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

export function isModernVersion(version: unknown): boolean {
  return typeof version === "string" && (MODERN_VERSIONS as readonly string[]).includes(version);
}

export function isLegacyVersion(version: unknown): boolean {
  return typeof version === "string" && (LEGACY_VERSIONS as readonly string[]).includes(version);
}

/** The `_meta` keys of the modern per-request envelope (MCP 2026-07-28 basic/index "_meta"). */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** Error codes the MCP specification reserves for itself (2026-07-28, -32020 to -32099). */
export const MODERN_ERROR = {
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;
