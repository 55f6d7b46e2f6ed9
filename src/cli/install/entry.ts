/** The server entry each client expects: a command line for stdio, or a URL for a running HTTP server. */
import type { Client } from "./paths.ts";

export interface ServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  url?: string;
}

/**
 * Claude Desktop's file launches local servers only: mcp-remote (through npx) bridges its stdio to the URL. It takes
 * plain http only from localhost unless told so.
 */
function mcpRemoteArgs(url: string): string[] {
  const { protocol, hostname } = new URL(url);
  const local = hostname === "localhost" || hostname === "127.0.0.1";
  return protocol === "http:" && !local ? [url, "--allow-http"] : [url];
}

/** The entry written under the client's servers key (JSON clients) or as the TOML table (Codex). */
export function clientEntry(client: Client, spec: ServerSpec): Record<string, unknown> {
  if (spec.url !== undefined) {
    if (client === "claude-desktop") return { command: "npx", args: ["-y", "mcp-remote", ...mcpRemoteArgs(spec.url)] };
    if (client === "vscode" || client === "claude-code") return { type: "http", url: spec.url };
    if (client === "gemini") return { httpUrl: spec.url };
    return { url: spec.url };
  }
  const env = Object.keys(spec.env).length > 0 ? { env: spec.env } : {};
  const base = { command: spec.command, args: spec.args, ...env };
  if (client === "vscode" || client === "claude-code") return { type: "stdio", ...base };
  return base;
}

/** The key under which a JSON client lists its servers. */
export function serversKey(client: Client): string {
  return client === "vscode" ? "servers" : "mcpServers";
}

/** `cursor://…` or `vscode:mcp/install?…`: a link that asks the editor to add the server. */
export function installLink(client: "cursor" | "vscode", name: string, spec: ServerSpec): string {
  const entry = clientEntry(client, spec);
  if (client === "cursor") {
    const config = Buffer.from(JSON.stringify(entry)).toString("base64");
    return `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(name)}&config=${encodeURIComponent(config)}`;
  }
  return `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name, ...entry }))}`;
}
