/** Where each client keeps its MCP configuration, computed from the OS and environment given (so tests can ask for Windows and macOS). */
import path from "node:path";

export const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "codex", "gemini"] as const;
export type Client = (typeof CLIENTS)[number];

export interface Host {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
}

export function isClient(name: string): name is Client {
  return (CLIENTS as readonly string[]).includes(name);
}

export function homeDir({ platform, env }: Host): string {
  const home = platform === "win32" ? (env.USERPROFILE ?? env.HOME) : env.HOME;
  if (!home)
    throw new Error(`cannot find the home directory: ${platform === "win32" ? "USERPROFILE" : "HOME"} is not set`);
  return home;
}

function appData(host: Host): string {
  return host.env.APPDATA ?? path.win32.join(homeDir(host), "AppData", "Roaming");
}

/** The user-level configuration file of `client` on `host`. */
export function configPath(client: Client, host: Host): string {
  const p = host.platform === "win32" ? path.win32 : path.posix;
  const home = homeDir(host);
  switch (client) {
    case "claude-desktop":
      if (host.platform === "darwin")
        return p.join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
      if (host.platform === "win32") return p.join(appData(host), "Claude", "claude_desktop_config.json");
      return p.join(host.env.XDG_CONFIG_HOME ?? p.join(home, ".config"), "Claude", "claude_desktop_config.json");
    case "vscode":
      if (host.platform === "darwin") return p.join(home, "Library", "Application Support", "Code", "User", "mcp.json");
      if (host.platform === "win32") return p.join(appData(host), "Code", "User", "mcp.json");
      return p.join(host.env.XDG_CONFIG_HOME ?? p.join(home, ".config"), "Code", "User", "mcp.json");
    case "claude-code":
      return p.join(home, ".claude.json");
    case "cursor":
      return p.join(home, ".cursor", "mcp.json");
    case "codex":
      return p.join(host.env.CODEX_HOME ?? p.join(home, ".codex"), "config.toml");
    case "gemini":
      return p.join(home, ".gemini", "settings.json");
  }
}
