/** Where a client lists its servers: the user file install writes, and what uninstall must clear for the current folder. */
import path from "node:path";
import { serversKey } from "./entry.ts";
import { type Client, configPath, type Host } from "./paths.ts";

/** A config file and the paths of the servers objects in it (JSON; Codex's TOML has one table, `mcp_servers`). */
export interface Place {
  file: string;
  at: string[][];
}

/** The current folder's own config, which the client loads beside the user's (relative to the folder). */
const PROJECT_FILES: Partial<Record<Client, string>> = {
  "claude-code": ".mcp.json",
  cursor: path.join(".cursor", "mcp.json"),
  vscode: path.join(".vscode", "mcp.json"),
  gemini: path.join(".gemini", "settings.json"),
};

/**
 * Every place `client` loads a server from when started in `cwd`: the user-level file (for Claude Code also its
 * `projects[<cwd>].mcpServers`, the local scope of `claude mcp add`) and the folder's own file. The same file
 * reached twice (a folder that is the home directory) is listed once.
 */
export function uninstallPlaces(client: Client, host: Host, cwd: string): Place[] {
  const key = serversKey(client);
  const user: Place = { file: configPath(client, host), at: [[key]] };
  if (client === "claude-code") user.at.push(["projects", cwd, key]);
  const project = PROJECT_FILES[client];
  const places = [user];
  if (project !== undefined && path.resolve(cwd, project) !== path.resolve(user.file))
    places.push({ file: path.resolve(cwd, project), at: [[key]] });
  return places;
}
