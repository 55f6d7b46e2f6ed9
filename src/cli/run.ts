/** The command line: parse, configure, then serve (stdio or HTTP), list tools or call one. */
import { fstatSync } from "node:fs";
import { type Logger, type LogLevel, createLogger, isLogLevel, levelFromRustLog } from "../core/log.ts";
import { closestName } from "../core/did-you-mean.ts";
import { shutdownTelemetry, startTelemetry } from "../core/telemetry/index.ts";
import { ConfigError, type OptionValues, type OptionsOf, describeOption, readDeclared } from "../core/options.ts";
import type { Toolset } from "../core/tool.ts";
import type { Runtime } from "../core/toolset-module.ts";
import { type HttpConfig, httpOptions, readHttpConfig, shutdownGraceMs } from "../mcp/http/config.ts";
import { readCallLimits } from "../mcp/protocol/admission.ts";
import type { DispatcherOptions as McpServerOptions } from "../mcp/protocol/dispatcher.ts";
import { toolsetModules } from "../toolsets/index.ts";
import { NAME, VERSION } from "../version.ts";
import { EXIT_OK, EXIT_USAGE, callTool, listTools, offToolNote, toolHelp } from "./call.ts";
import { callUsage, helpText } from "./help.ts";
import {
  chartOption,
  coreOptions,
  logFormatOption,
  logLevelOption,
  maxCallsOption,
  maxCallsPerSubjectOption,
  maxOutputBytesOption,
  maxQueuedCallsOption,
  type ParsedCommandLine,
  parseCommandLine,
  textOption,
  toolNamesOption,
} from "./options.ts";
import { describeStartupFailure } from "./startup-errors.ts";
import { closeOnSignals } from "./signals.ts";
import { dropWritesToClosedPipe, writeStdout } from "./stdout.ts";
import { type DormantToolset, dormantToolsets, selectToolsets } from "./toolsets.ts";

type Env = Record<string, string | undefined>;

export async function run(argv: readonly string[], env: Env): Promise<number> {
  try {
    return await runOrThrow(argv, env);
  } catch (error) {
    process.stderr.write(`${NAME}: ${describeStartupFailure(error)}\n`);
    if (wantsDetails(argv, env) && !(error instanceof ConfigError) && error instanceof Error && error.stack) {
      process.stderr.write(`${error.stack}\n`);
    }
    return EXIT_USAGE;
  }
}

/** Whether the user asked for debug output, read without the option parser (which may be what failed). */
function wantsDetails(argv: readonly string[], env: Env): boolean {
  const flag = argv.findIndex(
    (arg) => arg === `--${logLevelOption.name}` || arg.startsWith(`--${logLevelOption.name}=`),
  );
  const level = flag === -1 ? env.LOG_LEVEL : argv[flag].includes("=") ? argv[flag].split("=")[1] : argv[flag + 1];
  return level === "debug" || level === "trace";
}

async function runOrThrow(argv: readonly string[], env: Env): Promise<number> {
  // Loaded only for their command: a server's start-up never pays for them.
  if (argv[0] === "install" || argv[0] === "uninstall") {
    dropWritesToClosedPipe();
    const { runInstall } = await import("./install/index.ts");
    return runInstall(argv[0], argv.slice(1), env);
  }
  if (argv[0] === "health") {
    dropWritesToClosedPipe();
    // One URL at most: a second word was ignored, and its check then reported only the first.
    if (argv.length > 2)
      throw new ConfigError(
        `'mcpkit health' takes one URL at most, got ${argv.length - 1} arguments; usage: mcpkit health [URL]`,
      );
    return (await import("./health.ts")).checkHealth(argv[1]);
  }
  const specs = [...coreOptions, ...toolsetModules.flatMap((module) => module.options), ...httpOptions];
  const parsed = parseCommandLine(argv, env, specs);
  const { values } = parsed;
  const chosen = chooseCommand(parsed);
  if (typeof chosen === "string") return print(chosen);
  const { command, rest, help } = chosen;
  const core = readDeclared(coreOptions, values);
  const http = command === undefined ? readHttpConfig(values) : undefined;
  const mode: Runtime["mode"] = command !== undefined ? "call" : http ? "http" : "stdio";
  const log = createLogger(
    logLevel(values, env, mode === "call" ? "warn" : "info"),
    undefined,
    core[logFormatOption.name],
  );
  const runtime: Runtime = { log, mode, cwd: process.cwd() };
  // `call TOOL` builds only what it needs; `call TOOL --help` and every other command build all.
  const forTool = command === "call" && !help ? rest[0] : undefined;
  const { toolsets, off } = selectToolsets(toolsetModules, values, runtime, forTool);
  // For `call`: the tools of the toolsets that are off, to name them in help and in errors; built
  // only when a name is not among the enabled tools.
  let dormant: readonly DormantToolset[] | undefined;
  const dormantLookup = () => {
    dormant ??= dormantToolsets(toolsetModules, off, values, runtime);
    return dormant;
  };

  // Loads the OpenTelemetry SDK only when an OTEL_* variable asks (core/telemetry/index.ts).
  if (command !== "tools") await startTelemetry({ env, log, serviceVersion: VERSION });
  const shutdown = new ShutdownDeadline();
  try {
    if (command === "tools") {
      if (rest.length > 0) throw new ConfigError(`'mcpkit tools' takes no arguments, got "${rest[0]}"`);
      return print(listTools(toolsets, off));
    }
    if (command === "call") {
      if (help) return print(toolHelp(toolsets, rest[0], dormantLookup));
      return await runCall(rest, values, { toolsets, core, log, dormantLookup });
    }
    for (const toolset of toolsets) if (toolset.warning) log.warn(toolset.warning);
    for (const toolset of off) if (!toolset.leftOut) log.info(`${toolset.name}: off, ${toolset.reason}`);
    return await serve(http, serverOptionsOf({ toolsets, core, log, dormantLookup }), log, shutdown);
  } finally {
    await closeAll(toolsets, log);
    await shutdownTelemetry(shutdown.timeLeftMs());
  }
}

/** What `mcpkit call` and a server both start from: the toolsets built, the core options, the log. */
interface Started {
  toolsets: Toolset[];
  core: OptionsOf<typeof coreOptions>;
  log: Logger;
  /** The tools of the toolsets that are off, built only when a name is not among the enabled tools. */
  dormantLookup: () => readonly DormantToolset[];
}

/** `mcpkit call TOOL [JSON]`: one call, its result on stdout; Ctrl-C cancels it. */
async function runCall(rest: readonly string[], values: OptionValues, started: Started): Promise<number> {
  const { toolsets, core, log, dormantLookup } = started;
  if (rest.length > 2)
    throw new ConfigError(
      `usage: mcpkit call TOOL [JSON]; quote the JSON as one argument (got ${rest.length} arguments)`,
    );
  const aborter = new AbortController();
  process.once("SIGINT", () => aborter.abort());
  const request = {
    name: rest[0],
    json: rest[1],
    textOnly: values[textOption.name] === true,
    chart: values[chartOption.name] === true,
    outputBudget: core[maxOutputBytesOption.name],
  };
  const outcome = await callTool(toolsets, request, log, aborter.signal, dormantLookup);
  await print(outcome.stdout);
  return outcome.code;
}

/** The MCP server's options, as the core options say (names, output budget, call limits). */
function serverOptionsOf({ toolsets, core, log, dormantLookup }: Started): McpServerOptions {
  return {
    toolsets,
    log,
    toolNames: core[toolNamesOption.name],
    outputBudget: core[maxOutputBytesOption.name],
    offTool: (name) => offToolNote(name, dormantLookup),
    callLimits: readCallLimits({
      maxRunning: core[maxCallsOption.name],
      maxRunningPerSubject: core[maxCallsPerSubjectOption.name],
      maxQueued: core[maxQueuedCallsOption.name],
    }),
  };
}

/**
 * The time a signalled HTTP server has until it must be gone (--shutdown-grace-s, counted from the
 * signal): the last telemetry flush gets only what the calls in flight left of it, so a collector
 * that never answers cannot stretch the exit past the grace (10 s + 5 s had outlasted `docker stop`).
 */
class ShutdownDeadline {
  private at: number | undefined;

  /** The signal arrived: the grace period starts now. */
  start(graceMs: number): void {
    this.at ??= performance.now() + graceMs;
  }

  /** Milliseconds left, or undefined (telemetry's own budget) when no grace period runs. */
  timeLeftMs(): number | undefined {
    return this.at === undefined ? undefined : Math.max(0, this.at - performance.now());
  }
}

/** Serves MCP until the transport closes: over HTTP with `--http`, else on stdin/stdout. */
async function serve(
  http: HttpConfig | undefined,
  serverOptions: McpServerOptions,
  log: Logger,
  shutdown: ShutdownDeadline,
): Promise<number> {
  if (http) {
    const serving = closeOnSignals(() => shutdown.start(shutdownGraceMs(http)));
    // Loaded only here: stdio start-up (what desktop clients wait on) skips the HTTP and JWT code.
    const { serveHttp } = await import("../mcp/http/serve.ts");
    const server = await serveHttp(http, serverOptions);
    serving(server);
    await server.closed;
    return EXIT_OK;
  }
  const serving = closeOnSignals();
  keepStdoutForProtocol();
  // A person who ran `mcpkit` by hand would otherwise watch it wait in silence.
  if (stdinIsTerminal()) {
    log.info(
      "stdin is a terminal: mcpkit now waits for an MCP client's JSON-RPC messages (clients start it themselves); try 'mcpkit tools' or 'mcpkit help' instead, Ctrl-C stops",
    );
  }
  // Loaded only here, like HTTP: `mcpkit call` and `mcpkit tools` never load the MCP SDK.
  const { serveStdio } = await import("../mcp/stdio/serve.ts");
  const server = await serveStdio(serverOptions);
  serving(server);
  await server.closed;
  log.info("stdin closed; exiting");
  return EXIT_OK;
}

/**
 * `process.stdin.isTTY` without `process.stdin`, whose Node stream the stdio server does without
 * (mcp/stdio/native-stdio.ts): a pipe, socket or file (how clients start mcpkit) is no terminal;
 * only for a character device is node:tty asked, which loads what process.stdin would.
 */
function stdinIsTerminal(): boolean {
  try {
    if (!fstatSync(0).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return (require("node:tty") as typeof import("node:tty")).isatty(0);
}

interface ChosenCommand {
  command: "tools" | "call" | undefined;
  rest: string[];
  /** `call TOOL --help` (or `help TOOL`): describe the tool instead of running it. */
  help: boolean;
}

/**
 * What to do, read as people type it: `help`, `-h` and `--help` anywhere print the usage;
 * `help call` and `call --help` explain call; `help TOOL` is `call TOOL --help`; `version`, `-V`
 * and `-v` print the version. Returns the text to print when that is all there is to do.
 */
function chooseCommand({ positionals, help, version }: ParsedCommandLine): ChosenCommand | string {
  const [command, ...rest] = positionals;
  if (version || command === "version") return `${NAME} ${VERSION}\n`;
  if (command === "help" && rest[0] !== undefined && rest[0] !== "tools") {
    return rest[0] === "call" ? callUsage() : { command: "call", rest: rest.slice(0, 1), help: true };
  }
  if ((help && command !== "call") || command === "help") {
    return helpText({ title: "Options", options: coreOptions }, toolsetModules, [
      { title: "HTTP (--http)", options: httpOptions },
    ]);
  }
  if (command === "call" && help && rest[0] === undefined) return callUsage();
  if (command !== undefined && command !== "tools" && command !== "call") {
    const near = closestName(command, ["tools", "call", "install", "uninstall", "health", "help", "version"]);
    throw new ConfigError(
      `unknown command "${command}"${near ? `; did you mean '${near}'?` : ""}; the commands are 'tools', 'call', 'install', 'uninstall', 'health', 'help' and 'version' (run 'mcpkit --help')`,
    );
  }
  return { command, rest, help };
}

function logLevel(values: OptionValues, env: Env, fallback: LogLevel): LogLevel {
  const flag = values[logLevelOption.name] as string | undefined;
  if (flag !== undefined) {
    const level = flag.trim().toLowerCase();
    if (!isLogLevel(level)) {
      throw new ConfigError(
        `invalid ${describeOption(logLevelOption)}: expected one of error, warn, info, debug, trace, off (got ${JSON.stringify(flag)})`,
      );
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
  await writeStdout(text);
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
