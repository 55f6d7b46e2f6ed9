/**
 * A bare stdio peer for tests that must send what no SDK client would (broken JSON, wrong
 * shapes) and inspect every byte the server writes to stdout.
 */
import { REPO_ROOT, mcpkitCommand, testEnv } from "./mcp.ts";

export interface RawServer {
  /** Writes one line (a string as-is, anything else as JSON). */
  send(message: unknown): void;
  /** Writes raw bytes, no newline added. */
  write(bytes: string | Uint8Array): void;
  /** Resolves with the response carrying this id. */
  response(id: number | string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Every stdout line so far. */
  lines(): string[];
  stderr(): string;
  /** All of stderr, once the process has closed it (what it wrote last, after its exit, included). */
  stderrEnded(): Promise<string>;
  /** Sends initialize + initialized. */
  initialize(): Promise<Record<string, unknown>>;
  closeStdin(): void;
  exited: Promise<number>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts mcpkit (or `command`, another entry file) with `args` and a raw peer on its stdio. */
export function startRawServer(args: string[], env: Record<string, string> = {}, command = mcpkitCommand()): RawServer {
  const child = Bun.spawn([...command, ...args], {
    cwd: REPO_ROOT,
    env: testEnv(env),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdoutLines: string[] = [];
  let stderrText = "";
  const waiters = new Map<string, (message: Record<string, unknown>) => void>();
  const seen = new Map<string, Record<string, unknown>>();

  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        stdoutLines.push(line);
        try {
          const message = JSON.parse(line) as Record<string, unknown>;
          if ("id" in message) {
            const key = JSON.stringify(message.id);
            seen.set(key, message);
            waiters.get(key)?.(message);
          }
        } catch {
          // kept in stdoutLines; the test decides
        }
        newline = buffer.indexOf("\n");
      }
    }
    if (buffer) stdoutLines.push(buffer);
  })();
  const stderrRead = (async () => {
    for await (const chunk of child.stderr) stderrText += new TextDecoder().decode(chunk);
  })();

  const write = (bytes: string | Uint8Array) => {
    child.stdin.write(bytes);
    child.stdin.flush();
  };
  const send = (message: unknown) => write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  const response = (id: number | string, timeoutMs = 30_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const key = JSON.stringify(id);
      const done = seen.get(key);
      if (done) return resolve(done);
      const timer = setTimeout(() => reject(new Error(`no response to id ${key} within ${timeoutMs} ms`)), timeoutMs);
      waiters.set(key, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });

  return {
    send,
    write,
    response,
    lines: () => [...stdoutLines],
    stderr: () => stderrText,
    stderrEnded: async () => {
      await stderrRead;
      return stderrText;
    },
    initialize: async () => {
      send({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
      const reply = await response("init");
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      return reply;
    },
    closeStdin: () => void child.stdin.end(),
    exited: child.exited,
    kill: (signal = "SIGTERM") => child.kill(signal),
  };
}

/** True when a stdout line is one JSON-RPC 2.0 message. */
export function isJsonRpcLine(line: string): boolean {
  try {
    const message = JSON.parse(line);
    return (
      message !== null &&
      typeof message === "object" &&
      message.jsonrpc === "2.0" &&
      ("method" in message || "result" in message || "error" in message)
    );
  } catch {
    return false;
  }
}
