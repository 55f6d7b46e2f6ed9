/**
 * Starts mcpkit as a real process and talks to it the way MCP clients do.
 *
 * The process is the compiled binary named by MCPKIT_BIN (a plain `bun test` sets it to a binary of
 * the current sources: test-binary.ts), else `bun src/main.ts` (`MCPKIT_BIN=` asks for it). The environment is scrubbed of mcpkit's variables,
 * and BOJ_BASE_URL points at a closed local port, so no test can reach the real services by accident.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { coreOptions } from "../../src/cli/options.ts";
import type { OptionSpec } from "../../src/core/options.ts";
import { httpOptions } from "../../src/mcp/http/config.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";

export const REPO_ROOT = resolve(import.meta.dir, "../..");

/** The command that runs mcpkit: the compiled binary under MCPKIT_BIN, else the sources. */
export function mcpkitCommand(): string[] {
  const bin = process.env.MCPKIT_BIN;
  return bin ? [resolve(REPO_ROOT, bin)] : [process.execPath, resolve(REPO_ROOT, "src/main.ts")];
}

/** Every variable mcpkit reads, derived from the options each part declares, so a new toolset's are scrubbed too. */
const SCRUBBED = new Set(
  (
    [...coreOptions, ...toolsetModules.flatMap((module) => module.options), ...httpOptions] as readonly OptionSpec[]
  ).flatMap((option) => (option.env ? [option.env] : [])),
);
SCRUBBED.add("RUST_LOG");

export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // OTEL_*: a developer's own OpenTelemetry settings would turn mcpkit's telemetry on in every test.
    if (value !== undefined && !SCRUBBED.has(key) && !key.startsWith("MCPKIT_") && !key.startsWith("OTEL_")) {
      env[key] = value;
    }
  }
  env.BOJ_BASE_URL = "http://127.0.0.1:9";
  return { ...env, ...extra };
}

export interface StartOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Directories the client offers as roots; omit for a client without the roots capability. */
  roots?: string[];
  /** Declare the MCP Apps UI extension, as hosts that render apps do. */
  rendersApps?: boolean;
}

/** The capability an MCP Apps host declares (ext-apps `io.modelcontextprotocol/ui`). */
export const UI_EXTENSIONS = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };

export interface RunningServer {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /**
   * Resolves with the first stderr line written from now on that matches `pattern`: a line the
   * server prints when it reaches a state, waited for as an event instead of a sleep.
   */
  nextStderrLine(pattern: RegExp): Promise<string>;
  /** Resolves with the first stderr line that matches `pattern`, already written or still to come. */
  stderrLine(pattern: RegExp): Promise<string>;
  /** Replace the client's roots and notify the server (`notifications/roots/list_changed`). */
  setRoots(dirs: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startStdioServer(options: StartOptions = {}): Promise<RunningServer> {
  const [command, ...baseArgs] = mcpkitCommand();
  const transport = new StdioClientTransport({
    command,
    args: [...baseArgs, ...(options.args ?? [])],
    env: testEnv(options.env),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let stderrText = "";
  const lineWaiters = new Set<(line: string) => boolean>();
  let partialLine = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    stderrText += text;
    const lines = (partialLine + text).split("\n");
    partialLine = lines.pop() ?? "";
    for (const line of lines) for (const waiter of [...lineWaiters]) if (waiter(line)) lineWaiters.delete(waiter);
  });
  const nextStderrLine = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      lineWaiters.add((line) => {
        if (!pattern.test(line)) return false;
        resolve(line);
        return true;
      });
    });

  let roots = options.roots ?? [];
  const client = new Client(
    { name: "mcpkit-tests", version: "1.0.0" },
    {
      capabilities: {
        ...(options.roots ? { roots: { listChanged: true } } : {}),
        ...(options.rendersApps ? { extensions: UI_EXTENSIONS } : {}),
      } as never,
    },
  );
  if (options.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })),
    }));
  }
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderrText,
    nextStderrLine,
    stderrLine: (pattern) => {
      const written = stderrText.slice(0, stderrText.length - partialLine.length).split("\n");
      const found = written.find((line) => pattern.test(line));
      return found === undefined ? nextStderrLine(pattern) : Promise.resolve(found);
    },
    setRoots: async (dirs) => {
      roots = dirs;
      await client.sendRootsListChanged();
    },
    close: () => client.close(),
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `mcpkit ARGS…` to completion. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return runProcess([...mcpkitCommand(), ...args], {
    ...options,
    cwd: options.cwd ?? REPO_ROOT,
    env: testEnv(options.env),
  });
}

/** Runs any command to completion (killed after `timeoutMs`), collecting its output. */
export async function runProcess(
  command: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const child = Bun.spawn(command, {
    cwd: options.cwd,
    env: options.env ?? testEnv(),
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill(), options.timeoutMs ?? 30_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}
