/**
 * CI check (issue 35): real clients, pinned, list mcpkit as connected after `mcpkit install <client>` and no longer
 * after `mcpkit uninstall <client>`. Claude Code, Gemini CLI and Codex CLI are installed from npm into a temporary
 * prefix (never the project's dependencies) and run with a throwaway HOME, a minimal environment (no API keys, which
 * listing servers does not need; telemetry and update checks off) and a time limit on every command, so a client
 * waiting on the network cannot hang CI. When npm cannot fetch them (offline), the check says so in one line and
 * passes.
 *
 * Usage: bun scripts/ci/real-clients.ts [MCPKIT_BINARY]   (default dist/mcpkit)
 *
 * Each client's own listing decides "connected": `claude mcp list` (✔ Connected); `gemini mcp list` in a folder
 * trusted through ~/.gemini/trustedFolders.json (Gemini disables every server in an untrusted folder); for Codex,
 * whose `codex mcp list` reads its config without starting anything, `codex app-server`'s mcpServerStatus/list,
 * which starts mcpkit and answers with its serverInfo and tools. The entries are user-scope ones, which is what
 * `mcpkit install` writes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The versions the issue's reporter used; bump them on purpose, one at a time. */
const PINNED = {
  "@anthropic-ai/claude-code": "2.1.197",
  "@google/gemini-cli": "0.61.0",
  "@openai/codex": "0.171.0",
} as const;
const NPM_SECONDS = 150;
const COMMAND_SECONDS = 60;
/** npm's codes and phrases for a registry it cannot reach: the check is skipped, not failed. */
const UNREACHABLE =
  /\b(ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENETUNREACH|EHOSTUNREACH|ECONNABORTED|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\b|network request|request to \S+ failed/;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

const HAS_TIMEOUT = Bun.which("timeout") !== null;

/**
 * Runs COMMAND for at most SECONDS. coreutils `timeout` signals the whole process group, so a server the client
 * started goes too; the race below still returns if something outside the group holds the pipes open.
 */
function limited(command: string[], seconds: number): string[] {
  return HAS_TIMEOUT ? ["timeout", "--kill-after=5", String(seconds), ...command] : command;
}

async function run(
  command: string[],
  options: { cwd: string; env: Record<string, string>; seconds: number },
): Promise<Ran> {
  const child = Bun.spawn(limited(command, options.seconds), {
    cwd: options.cwd,
    env: options.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const finished = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  let timer: Timer | undefined;
  const deadline = new Promise<null>((done) => {
    timer = setTimeout(() => done(null), (options.seconds + 15) * 1000);
  });
  const result = await Promise.race([finished, deadline]);
  clearTimeout(timer);
  if (!result) {
    child.kill("SIGKILL");
    return { code: -1, stdout: "", stderr: "", timedOut: true };
  }
  const [stdout, stderr, code] = result;
  return { code, stdout, stderr, timedOut: code === 124 || code === 137 };
}

const indent = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");

function describe(command: string, ran: Ran): string {
  if (ran.timedOut) return `${command}: timed out`;
  const output = `${ran.stdout}${ran.stderr ? `\n${ran.stderr}` : ""}`;
  return `${command} (exit ${ran.code}):\n${indent(output || "(no output)")}`;
}

/** Installs the pinned clients into PREFIX; returns why the check is skipped, or undefined once installed. */
async function installClients(prefix: string): Promise<string | undefined> {
  if (!Bun.which("npm")) return "npm is not installed";
  const specs = Object.entries(PINNED).map(([name, version]) => `${name}@${version}`);
  const ran = await run(
    ["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", ...specs],
    {
      cwd: prefix,
      env: { ...stringEnv(process.env), npm_config_update_notifier: "false" },
      seconds: NPM_SECONDS,
    },
  );
  if (ran.code === 0) return undefined;
  if (ran.timedOut) return `npm could not fetch ${specs.join(", ")} within ${NPM_SECONDS} s`;
  if (UNREACHABLE.test(ran.stderr)) return `npm cannot reach its registry (${UNREACHABLE.exec(ran.stderr)![0]})`;
  throw new Error(describe(`npm install ${specs.join(" ")}`, ran));
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** What the clients see: nothing of the caller's environment but PATH (node), so no keys and no config of theirs. */
function clientEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    // Claude Code: no update check, telemetry, error reports or other non-essential traffic.
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // Gemini CLI: telemetry off here; usage statistics and auto-update in the settings written below.
    GEMINI_TELEMETRY_ENABLED: "false",
  };
}

/** The clients' own settings for a quiet start, written before `mcpkit install` merges its entry into them. */
function seedHome(home: string, workspace: string): void {
  mkdirSync(join(home, ".gemini"), { recursive: true });
  const geminiSettings = {
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
  };
  writeFileSync(join(home, ".gemini", "settings.json"), `${JSON.stringify(geminiSettings, null, 2)}\n`);
  // How a user trusts a folder in Gemini CLI (its /permissions dialog writes the same file).
  writeFileSync(join(home, ".gemini", "trustedFolders.json"), `${JSON.stringify({ [workspace]: "TRUST_FOLDER" })}\n`);
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(
    join(home, ".codex", "config.toml"),
    "check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n",
  );
}

interface Context {
  bin: string;
  mcpkit: string;
  workspace: string;
  env: Record<string, string>;
}

interface ClientCheck {
  client: "claude-code" | "gemini" | "codex";
  title: string;
  list: string[];
  /** Whether the listing shows mcpkit connected (Codex: configured and enabled; `connect` proves the rest). */
  connected(ran: Ran): boolean;
  listed(ran: Ran): boolean;
  /** A further check that the client itself started mcpkit; returns what it saw or throws. */
  connect?(context: Context): Promise<string>;
}

const both = (ran: Ran) => `${ran.stdout}\n${ran.stderr}`;

function codexEntries(ran: Ran): { name: string; enabled: boolean }[] {
  return JSON.parse(ran.stdout) as { name: string; enabled: boolean }[];
}

const CHECKS: ClientCheck[] = [
  {
    client: "claude-code",
    title: `Claude Code ${PINNED["@anthropic-ai/claude-code"]}`,
    list: ["claude", "mcp", "list"],
    connected: (ran) => /^mcpkit: .*✔ Connected\s*$/m.test(both(ran)),
    listed: (ran) => /^mcpkit:/m.test(both(ran)),
  },
  {
    client: "gemini",
    title: `Gemini CLI ${PINNED["@google/gemini-cli"]}`,
    list: ["gemini", "mcp", "list"],
    connected: (ran) => /^✓ mcpkit: .*- Connected\s*$/m.test(both(ran)),
    listed: (ran) => /^\S+ mcpkit:/m.test(both(ran)),
  },
  {
    client: "codex",
    title: `Codex CLI ${PINNED["@openai/codex"]}`,
    list: ["codex", "mcp", "list", "--json"],
    connected: (ran) => codexEntries(ran).some((entry) => entry.name === "mcpkit" && entry.enabled),
    listed: (ran) => codexEntries(ran).some((entry) => entry.name === "mcpkit"),
    connect: codexServerStatus,
  },
];

/** Asks `codex app-server` (JSON-RPC lines on stdio) for mcpServerStatus/list, which starts the configured servers. */
async function codexServerStatus(context: Context): Promise<string> {
  const child = Bun.spawn(limited([join(context.bin, "codex"), "app-server"], COMMAND_SECONDS), {
    cwd: context.workspace,
    env: context.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const requests = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "mcpkit-ci", version: "1.0.0" } } },
    { jsonrpc: "2.0", method: "initialized" },
    { jsonrpc: "2.0", id: 2, method: "mcpServerStatus/list", params: { detail: "toolsAndAuthOnly" } },
  ];
  child.stdin.write(requests.map((request) => `${JSON.stringify(request)}\n`).join(""));
  child.stdin.flush();
  let timer: Timer | undefined;
  const deadline = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), (COMMAND_SECONDS + 5) * 1000);
  });
  try {
    const answer = await Promise.race([answerTo(2, child.stdout), deadline]);
    if (!answer) throw new Error(`codex app-server gave no answer to mcpServerStatus/list within ${COMMAND_SECONDS} s`);
    return summarizeStatus(answer);
  } finally {
    clearTimeout(timer);
    child.stdin.end();
    child.kill();
  }
}

/** The JSON-RPC message with ID among the lines of STREAM. */
async function answerTo(id: number, stream: ReadableStream<Uint8Array>): Promise<any> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (!line.startsWith("{")) continue; // the app server writes only JSON-RPC lines; skip anything else
      const message = JSON.parse(line);
      if (message.id === id) return message;
    }
  }
  return undefined;
}

function summarizeStatus(answer: any): string {
  if (answer.error) throw new Error(`mcpServerStatus/list failed: ${JSON.stringify(answer.error)}`);
  const status = (answer.result?.data ?? []).find((server: any) => server.name === "mcpkit");
  if (!status) throw new Error(`mcpServerStatus/list has no mcpkit: ${JSON.stringify(answer.result).slice(0, 400)}`);
  const tools = Object.keys(status.tools ?? {});
  if (status.serverInfo?.name !== "mcpkit" || tools.length === 0)
    throw new Error(`codex did not connect to mcpkit: ${JSON.stringify(status).slice(0, 600)}`);
  return `serverInfo ${status.serverInfo.name} ${status.serverInfo.version}, ${tools.length} tools (${tools.join(", ")})`;
}

/** install → listed and connected → uninstall → not listed, for one client; throws with what went wrong. */
async function checkClient(check: ClientCheck, context: Context): Promise<void> {
  const options = { cwd: context.workspace, env: context.env, seconds: COMMAND_SECONDS };
  const step = async (label: string, command: string[], expect: (ran: Ran) => boolean, why: string) => {
    const ran = await run(command, options);
    console.log(`${check.client}: ${describe(label, ran)}`);
    if (ran.timedOut || ran.code !== 0 || !expect(ran)) throw new Error(`${label}: ${why}`);
  };
  const list = [join(context.bin, check.list[0]), ...check.list.slice(1)];
  await step(`mcpkit install ${check.client}`, [context.mcpkit, "install", check.client], () => true, "failed");
  await step(check.list.join(" "), list, check.connected, "mcpkit is not shown connected");
  if (check.connect)
    console.log(`${check.client}: codex app-server mcpServerStatus/list: ${await check.connect(context)}`);
  await step(`mcpkit uninstall ${check.client}`, [context.mcpkit, "uninstall", check.client], () => true, "failed");
  await step(check.list.join(" "), list, (ran) => !check.listed(ran), "mcpkit is still listed after uninstall");
}

async function main(): Promise<number> {
  const mcpkit = resolve(process.argv[2] ?? "dist/mcpkit");
  if (!(await Bun.file(mcpkit).exists())) {
    console.error(`real clients: ${mcpkit} does not exist (bun run build first)`);
    return 1;
  }
  const root = mkdtempSync(join(tmpdir(), "mcpkit-real-clients-"));
  try {
    const prefix = join(root, "prefix");
    mkdirSync(prefix);
    const skipped = await installClients(prefix);
    if (skipped) {
      console.log(`SKIPPED real clients (Claude Code, Gemini CLI, Codex CLI): ${skipped}`);
      return 0;
    }
    const home = join(root, "home");
    const workspace = join(home, "workspace");
    mkdirSync(workspace, { recursive: true });
    seedHome(home, workspace);
    const context = { bin: join(prefix, "node_modules", ".bin"), mcpkit, workspace, env: clientEnv(home) };
    let failed = 0;
    for (const check of CHECKS) {
      try {
        await checkClient(check, context);
        console.log(`ok: ${check.title} lists mcpkit connected after install and not after uninstall`);
      } catch (error) {
        failed++;
        console.log(`FAILED: ${check.title}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return failed === 0 ? 0 : 1;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

process.exit(await main());
