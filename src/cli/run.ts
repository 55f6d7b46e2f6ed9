/** The command line: parse, configure, then serve stdio, list tools or call one. */
import { type Logger, type LogLevel, createLogger, isLogLevel, levelFromRustLog } from "../core/log.ts";
import { ConfigError, describeOption } from "../core/options.ts";
import type { Toolset } from "../core/tool.ts";
import type { Runtime } from "../core/toolset-module.ts";
import { serveStdio } from "../mcp/stdio.ts";
import { httpOptions, readHttpConfig } from "../mcp/http-options.ts";
import { toolsetModules } from "../toolsets/index.ts";
import { NAME, VERSION } from "../version.ts";
import { EXIT_OK, EXIT_USAGE, callTool, listTools } from "./call.ts";
import { helpText } from "./help.ts";
import { coreOptions, parseCommandLine } from "./options.ts";
import { selectToolsets } from "./toolsets.ts";

type Env = Record<string, string | undefined>;

export async function run(argv: readonly string[], env: Env): Promise<number> {
  try {
    return await runOrThrow(argv, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${NAME}: ${error.message}\n`);
    return EXIT_USAGE;
  }
}

async function runOrThrow(argv: readonly string[], env: Env): Promise<number> {
  const specs = [...coreOptions, ...toolsetModules.flatMap((module) => module.options), ...httpOptions];
  const { values, positionals, help, version } = parseCommandLine(argv, env, specs);
  if (version) return print(`${NAME} ${VERSION}\n`);
  if (help) return print(helpText({ title: "Options", options: coreOptions }, toolsetModules, [{ title: "HTTP (--http)", options: httpOptions }]));

  const [command, ...rest] = positionals;
  if (command !== undefined && command !== "tools" && command !== "call") {
    throw new ConfigError(`unknown command "${command}"; the commands are 'tools' and 'call' (run 'mcpkit --help')`);
  }
  const mode = command === undefined ? "serve" : "call";
  const log = createLogger(logLevel(values["log-level"] as string | undefined, env, mode === "serve" ? "info" : "warn"));
  const runtime: Runtime = { log, mode, cwd: process.cwd(), env };
  const toolsets = selectToolsets(toolsetModules, values, runtime);

  try {
    if (command === "tools") {
      if (rest.length > 0) throw new ConfigError(`'mcpkit tools' takes no arguments, got "${rest[0]}"`);
      return print(listTools(toolsets));
    }
    if (command === "call") {
      if (rest.length > 2) throw new ConfigError(`usage: mcpkit call TOOL [JSON]; quote the JSON as one argument (got ${rest.length} arguments)`);
      const aborter = new AbortController();
      process.once("SIGINT", () => aborter.abort());
      const outcome = await callTool(toolsets, rest[0], rest[1], log, aborter.signal);
      await print(outcome.stdout);
      return outcome.code;
    }
    const http = readHttpConfig(values);
    if (http) {
      // Loaded only here: stdio start-up (what desktop clients wait on) skips the HTTP and JWT code.
      const { serveHttp } = await import("../mcp/http.ts");
      const server = await serveHttp(http, { toolsets, log });
      await server.closed;
      return EXIT_OK;
    }
    keepStdoutForProtocol();
    await serveStdio(toolsets, log);
    log.info("stdin closed; exiting");
    return EXIT_OK;
  } finally {
    await closeAll(toolsets, log);
  }
}

function logLevel(flag: string | undefined, env: Env, fallback: LogLevel): LogLevel {
  if (flag !== undefined) {
    const level = flag.trim().toLowerCase();
    if (!isLogLevel(level)) {
      throw new ConfigError(`invalid ${describeOption(coreOptions[1])}: expected one of error, warn, info, debug, trace, off (got ${JSON.stringify(flag)})`);
    }
    return level;
  }
  return (env.RUST_LOG && levelFromRustLog(env.RUST_LOG)) || fallback;
}

/** In stdio mode stdout carries JSON-RPC only; route any stray console output to stderr. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

async function print(text: string): Promise<number> {
  await Bun.write(Bun.stdout, text);
  return EXIT_OK;
}

async function closeAll(toolsets: readonly Toolset[], log: Logger): Promise<void> {
  for (const toolset of toolsets) {
    try {
      await toolset.close?.();
    } catch (error) {
      log.warn("toolset did not close cleanly", { toolset: toolset.name, error: (error as Error).message });
    }
  }
}
