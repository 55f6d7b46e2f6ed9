/**
 * Where the series catalogue lives: the user's cache folder, so a desktop client that starts
 * mcpkit afresh each day finds yesterday's catalogue instead of asking BOJ for all of it again.
 * `--boj-catalog-dir DIR` moves it; `off` keeps it in memory for the life of the process.
 */
import { homedir } from "node:os";
import { join } from "node:path";

/** $XDG_CACHE_HOME/mcpkit (~/.cache/mcpkit) on Linux, ~/Library/Caches/mcpkit on macOS, %LOCALAPPDATA%\mcpkit\cache on Windows. */
export function defaultCatalogDir(
  env: Record<string, string | undefined> = process.env,
  platform: string = process.platform,
  home: string = homedir(),
): string {
  if (platform === "darwin") return join(home, "Library", "Caches", "mcpkit");
  if (platform === "win32") return join(env.LOCALAPPDATA || join(home, "AppData", "Local"), "mcpkit", "cache");
  // XDG: a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg?.startsWith("/") ? xdg : join(home, ".cache"), "mcpkit");
}
