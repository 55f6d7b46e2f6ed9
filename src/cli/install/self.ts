/** The command line a client should run to start this very program. */
import fs from "node:fs";
import path from "node:path";

function realPath(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

/**
 * This program's path as the user reaches it. `process.execPath` has every link resolved, so a Homebrew install
 * would be written as `…/Cellar/mcpkit/<version>/bin/mcpkit`, gone at the next upgrade: the path it was invoked by,
 * or for a bare name the command the shell finds first on `PATH`, is written instead when it leads to the same file.
 */
function invokedPath(searchPath: string | undefined): string {
  const { argv0, execPath } = process;
  const target = realPath(execPath);
  const named = /[\\/]/.test(argv0);
  const found = named
    ? path.resolve(argv0)
    : (searchPath ?? "")
        .split(path.delimiter)
        .filter((dir) => path.isAbsolute(dir))
        .map((dir) => path.join(dir, argv0))
        .find((candidate) => fs.statSync(candidate, { throwIfNoEntry: false })?.isFile());
  return found !== undefined && target !== undefined && realPath(found) === target ? found : execPath;
}

/**
 * How to launch this very program: the compiled binary, or `bun` plus this checkout's entry script.
 * Clients start a server in the user's workspace, and plain `bun` would load that directory's
 * `.env` files and `bunfig.toml` (running its `preload` scripts): from source, the command names
 * this checkout's own bunfig and loads no `.env` (the compiled binary loads neither; see
 * scripts/release/compile.ts).
 */
export function selfCommand(searchPath: string | undefined): { command: string; args: string[] } {
  const script = Bun.main;
  const command = invokedPath(searchPath);
  const compiled = script.startsWith("/$bunfs") || /^[A-Z]:[\\/]~BUN/.test(script) || !fs.existsSync(script);
  if (compiled) return { command, args: [] };
  const entry = path.resolve(script);
  const bunfig = path.resolve(path.dirname(entry), "..", "bunfig.toml");
  return { command, args: [`--config=${bunfig}`, "--no-env-file", entry] };
}
