/**
 * HTTP test harness: starts `mcpkit --http` as a real process on a free loopback port, and a
 * real OAuth 2.1 authorization server (oauth2-mock-server) that issues JWTs through the
 * authorization-code grant with PKCE (S256) and honours RFC 8707 `resource` as the audience.
 */
import { createHash, randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Events, OAuth2Server } from "oauth2-mock-server";
import { REPO_ROOT, mcpkitCommand, testEnv } from "../support/mcp.ts";

export const PROTOCOL_VERSION = "2025-11-25";
export const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/**
 * The command that runs mcpkit, or a test fixture's entry file when one is given; with a preload,
 * mcpkit's sources (or the entry) under `bun --preload`.
 */
function command(entry?: string, preload?: string): string[] {
  if (preload) return [process.execPath, "--preload", preload, entry ?? resolve(REPO_ROOT, "src/main.ts")];
  return entry ? [process.execPath, entry] : mcpkitCommand();
}

export interface HttpServerProcess {
  /** e.g. `http://127.0.0.1:41234/mcp` */
  url: string;
  /** e.g. `http://127.0.0.1:41234` */
  base: string;
  port: number;
  pid: number;
  stderr(): string;
  /** All of stderr, once the process has closed it (after `stop`, say): what it never logged can be checked. */
  stderrEnded: Promise<string>;
  exited: Promise<number>;
  kill(signal?: NodeJS.Signals): void;
  /** SIGTERM, then wait for the exit (SIGKILL after 15 s). */
  stop(): Promise<number>;
}

/** Starts `mcpkit --http HOST:0 ARGS…` and waits for its "listening on URL" line. */
export async function startHttpServer(
  args: string[],
  options: { host?: string; env?: Record<string, string>; timeoutMs?: number; entry?: string; preload?: string } = {},
): Promise<HttpServerProcess> {
  const child = Bun.spawn(
    [...command(options.entry, options.preload), "--http", `${options.host ?? "127.0.0.1"}:0`, ...args],
    {
      cwd: REPO_ROOT,
      env: testEnv(options.env),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let stderrText = "";
  let stdoutText = "";
  const listening = Promise.withResolvers<string>();
  const stderrEnded = Promise.withResolvers<string>();
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderrText += decoder.decode(chunk, { stream: true });
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderrText);
      if (match) listening.resolve(match[1]);
    }
    stderrEnded.resolve(stderrText);
    listening.reject(new Error(`mcpkit exited before listening:\n${stderrText}`));
  })();
  void new Response(child.stdout).text().then((text) => {
    stdoutText = text;
  });
  const timer = setTimeout(
    () => listening.reject(new Error(`mcpkit did not start listening:\n${stderrText}`)),
    options.timeoutMs ?? 30_000,
  );
  let url: string;
  try {
    url = await listening.promise;
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const parsed = new URL(url);
  return {
    url,
    base: parsed.origin,
    port: Number(parsed.port),
    pid: child.pid,
    stderr: () => stderrText + (stdoutText ? `\n[stdout]\n${stdoutText}` : ""),
    stderrEnded: stderrEnded.promise,
    exited: child.exited,
    kill: (signal) => child.kill(signal),
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timeout = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await child.exited;
      clearTimeout(timeout);
      return code;
    },
  };
}

/** An SDK client connected over Streamable HTTP, optionally with a bearer token. */
export async function connectClient(
  url: string,
  token?: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
  });
  const client = new Client({ name: "mcpkit-http-tests", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

export function initializeBody(id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw-test", version: "1" } },
  });
}

/** POSTs a raw initialize; returns the session id (and drains the SSE answer). */
export async function openRawSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: initializeBody(),
  });
  const id = response.headers.get("mcp-session-id");
  await response.text();
  if (response.status !== 200 || !id) throw new Error(`initialize failed with HTTP ${response.status}`);
  return id;
}

export async function deleteRawSession(
  url: string,
  sessionId: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const response = await fetch(url, {
    method: "DELETE",
    headers: { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION, ...headers },
  });
  await response.arrayBuffer();
  return response.status;
}

/** The JSON-RPC messages in an SSE body (`data:` lines) or a plain JSON body. */
export function messagesOf(body: string, contentType: string | null): Record<string, unknown>[] {
  if (contentType?.includes("text/event-stream")) {
    return body
      .split("\n")
      .filter((line) => line.startsWith("data:") && line.slice(5).trim() !== "")
      .map((line) => JSON.parse(line.slice(5)));
  }
  return body.trim() === "" ? [] : [JSON.parse(body)];
}

// ---------------------------------------------------------------------------------------------
// The authorization server

export interface TokenRequest {
  scope: string;
  /** RFC 8707 resource (becomes `aud`); the MCP URL of the server under test. */
  resource: string;
  /** Changes to the token just before it is signed (one token only). */
  mutate?: (header: Record<string, unknown>, payload: Record<string, unknown>) => void;
}

export interface AuthServer {
  issuer: string;
  server: OAuth2Server;
  /** A real authorization-code grant with PKCE (S256), as an MCP client performs it. */
  token(request: TokenRequest): Promise<string>;
  stop(): Promise<void>;
}

const CLIENT_ID = "mcpkit-tests";
const REDIRECT_URI = "http://127.0.0.1:9/callback";

export async function startAuthServer(): Promise<AuthServer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256", { kid: "key-1" });
  await server.start(0, "127.0.0.1");
  const address = server.address();
  server.issuer.url = `http://127.0.0.1:${address.port}`;
  const issuer = server.issuer.url;

  // Two things a real authorization server does that the mock leaves out: the scope granted at
  // /authorize carries over to the token, and RFC 8707's `resource` becomes the audience.
  const scopeByCode = new Map<string, string>();
  server.service.on(Events.BeforeAuthorizeRedirect, (redirect, req) => {
    const scope = new URL(req.url ?? "", "http://localhost").searchParams.get("scope");
    const code = redirect.url.searchParams.get("code");
    if (scope && code) scopeByCode.set(code, scope);
  });
  server.service.on(Events.BeforeTokenSigning, (token, req) => {
    const body = req.body as Record<string, unknown>;
    if (typeof body.resource === "string") token.payload.aud = body.resource;
    if (typeof body.scope !== "string" && typeof body.code === "string" && scopeByCode.has(body.code)) {
      token.payload.scope = scopeByCode.get(body.code);
    }
  });

  const base64url = (bytes: Buffer) => bytes.toString("base64url");

  return {
    issuer,
    server,
    async token({ scope, resource, mutate }) {
      const verifier = base64url(randomBytes(32));
      const challenge = base64url(createHash("sha256").update(verifier).digest());
      const state = base64url(randomBytes(8));
      const authorize = new URL(`${issuer}/authorize`);
      for (const [key, value] of Object.entries({
        response_type: "code",
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT_URI,
        scope,
        state,
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource,
      })) {
        authorize.searchParams.set(key, value);
      }
      const redirect = await fetch(authorize, { redirect: "manual" });
      const location = new URL(redirect.headers.get("location") ?? "");
      if (location.searchParams.get("state") !== state) throw new Error("authorization server lost the state");
      const code = location.searchParams.get("code");
      if (!code) throw new Error(`no authorization code: ${location}`);

      if (mutate) {
        server.service.once(Events.BeforeTokenSigning, (token) =>
          mutate(token.header as Record<string, unknown>, token.payload),
        );
      }
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
          client_id: CLIENT_ID,
          resource,
          scope,
        }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!response.ok || !body.access_token)
        throw new Error(`token request failed: HTTP ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    stop: () => server.stop(),
  };
}

/** An SSE response read in the background: what has arrived so far, and whether the server ended it. */
export interface BackgroundReader {
  received(): string;
  ended(): boolean;
  /**
   * Resolves with the text so far once `done(text)` holds, checked as each chunk arrives; fails if
   * the stream ends (or the connection breaks) first, so a test waits on the stream, not a clock.
   */
  until(done: (received: string) => boolean, what?: string): Promise<string>;
  /** Resolves with everything received once the stream ends or breaks. */
  finished(): Promise<string>;
  /** Cancels the request (through its signal) and waits for the reading to stop. */
  stop(): Promise<void>;
}

/** How many keep-alive comments an SSE text holds. */
export function keepAlives(text: string): number {
  return (text.match(/: keepalive/g) ?? []).length;
}

export function readInBackground(response: Response, aborter: AbortController): BackgroundReader {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let received = "";
  let ended = false;
  let closed = false;
  let waiters: {
    done: (text: string) => boolean;
    what: string;
    resolve(text: string): void;
    reject(e: Error): void;
  }[] = [];
  const settle = () => {
    waiters = waiters.filter((waiter) => {
      if (waiter.done(received)) waiter.resolve(received);
      else if (closed)
        waiter.reject(new Error(`the stream ${ended ? "ended" : "broke"} before ${waiter.what}:\n${received}`));
      else return true;
      return false;
    });
  };
  const reading = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          ended = true;
          return;
        }
        received += decoder.decode(value, { stream: true });
        settle();
      }
    } catch {
      // aborted by the test at the end, or the connection broke
    } finally {
      closed = true;
      settle();
    }
  })();
  return {
    received: () => received,
    ended: () => ended,
    until: (done, what = "the awaited text") =>
      new Promise<string>((resolve, reject) => {
        waiters.push({ done, what, resolve, reject });
        settle();
      }),
    finished: async () => {
      await reading;
      return received;
    },
    stop: async () => {
      aborter.abort();
      await reading;
    },
  };
}
