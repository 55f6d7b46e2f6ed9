/**
 * `mcpkit --http --auth oauth` as a real process: the SDK client's own OAuth code registers,
 * the user consents and signs in at a real OIDC provider (oauth2-mock-server), and the token
 * mcpkit issues opens an MCP session whose tools/list and tools/call follow the granted scopes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { HttpServerProcess } from "../http/support.ts";
import { runCli } from "../support/mcp.ts";
import { freeLoopbackPort } from "../support/ports.ts";
import { type Harness, type Idp, signIn, startIdp, startOauthProcess } from "./harness.ts";
import { MemoryProvider } from "./sdk-client.ts";

let idp: Idp;
let dir: string;
let server: HttpServerProcess;

beforeAll(async () => {
  idp = await startIdp();
  dir = mkdtempSync(join(tmpdir(), "mcpkit-oauth-process-"));
  writeFileSync(join(dir, "report.md"), "hello");
  server = await startOauthProcess(idp, join(dir, "state"), "alice@example.com=fs:read", [
    "--toolsets",
    "boj,fs",
    "--root",
    dir,
  ]);
});
afterAll(async () => {
  await server?.stop();
  await idp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("mcpkit --http --auth oauth", () => {
  test("the SDK client signs in through mcpkit and calls the tools its scopes allow", async () => {
    const provider = new MemoryProvider("http://127.0.0.1:9/callback");
    expect(await auth(provider, { serverUrl: server.url })).toBe("REDIRECT");
    const { exit } = await signIn({ base: server.base, idp } as Harness, (provider.authorizationUrl as URL).href);
    expect(exit.searchParams.get("iss")).toBe(server.base);
    const code = exit.searchParams.get("code") ?? "";
    expect(await auth(provider, { serverUrl: server.url, authorizationCode: code })).toBe("AUTHORIZED");
    expect(provider.saved?.scope?.split(" ").sort()).toEqual(["fs:read"]);

    const client = new Client({ name: "oauth-process-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
    try {
      // The policy grants fs:read only, so the boj tools are not listed.
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(["fs_search_by_time"]);
      const result = (await client.callTool({
        name: "fs_search_by_time",
        arguments: { timeField: "modified" },
      })) as unknown as {
        structuredContent: { matches: { path: string }[] };
      };
      expect(result.structuredContent.matches.map((match) => match.path)).toContain("report.md");
    } finally {
      await client.close();
    }
    // The state file holds grants and keys: only its owner may read it.
    expect(statSync(join(dir, "state", "auth.db")).mode & 0o077).toBe(0);
    expect(server.stderr()).not.toContain(provider.saved?.access_token ?? "unreachable");
  });

  test("a replayed code revokes the sign-in: the access token it issued stops working at once", async () => {
    const provider = new MemoryProvider("http://127.0.0.1:9/callback");
    await auth(provider, { serverUrl: server.url });
    const { exit } = await signIn({ base: server.base, idp } as Harness, (provider.authorizationUrl as URL).href);
    const code = exit.searchParams.get("code") ?? "";
    expect(await auth(provider, { serverUrl: server.url, authorizationCode: code })).toBe("AUTHORIZED");
    const initialize = (token: string) =>
      fetch(server.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      });
    const token = provider.saved?.access_token ?? "";
    const before = await initialize(token);
    expect(before.status).toBe(200);
    await before.body?.cancel();

    const replay = await fetch(`${server.base}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        code_verifier: provider.codeVerifier(),
        client_id: provider.info?.client_id ?? "",
        redirect_uri: provider.redirectUrl,
        resource: server.url,
      }).toString(),
    });
    expect(replay.status).toBe(400);
    const after = await initialize(token);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain("revoked");
  });

  test("its routes check the Host header as /mcp does: a foreign Host gets 403 (issue 18, DNS rebinding)", async () => {
    const raw = (method: string, path: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const socket = connect({ host: "127.0.0.1", port: server.port }, () =>
          socket.end(`${method} ${path} HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`),
        );
        let text = "";
        socket.on("data", (chunk) => {
          text += chunk.toString();
        });
        socket.on("end", () => resolve(Number(text.split(" ")[1])));
        socket.on("error", reject);
      });
    const routes: [string, string][] = [
      ["GET", "/.well-known/oauth-authorization-server"],
      ["GET", "/.well-known/jwks.json"],
      ["POST", "/register"],
      ["GET", "/authorize?client_id=x"],
      ["POST", "/token"],
      ["POST", "/revoke"],
    ];
    for (const [method, path] of routes) {
      expect({ path, status: await raw(method, path, "evil.example") }).toEqual({ path, status: 403 });
      expect({ path, status: await raw(method, path, `evil.example:${server.port}`) }).toEqual({ path, status: 403 });
      expect(await raw(method, path, `127.0.0.1:${server.port}`)).not.toBe(403);
    }
  });

  test("without a token, /mcp answers 401 pointing at mcpkit's own authorization server", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(401);
    const metadata = (await (await fetch(`${server.base}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      authorization_servers: string[];
    };
    expect(metadata.authorization_servers).toEqual([server.base]);
    const as = (await (await fetch(`${server.base}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
    };
    expect(as.issuer).toBe(server.base);
  });
});

describe("mcpkit --http --auth oauth with an unreachable state store", () => {
  // The second password holds characters the URL parser percent-encodes: the message used to hide
  // only the encoded form, and printed this one whole.
  test.each(["PgPassw0rd-secret", "Pg^Secret|pw"])(
    "one line names --state with the password %p masked, exit 2; no secret anywhere",
    async (password) => {
      const port = freeLoopbackPort();
      const { code, stdout, stderr } = await runCli(
        [
          ...[
            "--http",
            "127.0.0.1:0",
            "--auth",
            "oauth",
            "--upstream-issuer",
            "http://127.0.0.1:9",
            "--upstream-client-id",
            "x",
          ],
          ...["--state", `postgres://mcpkit:${password}@127.0.0.1:${port}/mcpkit`, "--state-key", "cd".repeat(32)],
          "--log-level",
          "debug",
        ],
        { env: { MCPKIT_UPSTREAM_CLIENT_SECRET: "client-secret-never-shown" }, timeoutMs: 30_000 },
      );
      expect(code).toBe(2);
      expect(stdout).toBe("");
      const lines = stderr.split("\n").filter((line) => line.startsWith("mcpkit:"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`cannot open the authorization state postgres://mcpkit:***@127.0.0.1:${port}/mcpkit`);
      expect(lines[0]).toContain("--state (MCPKIT_STATE)");
      for (const secret of [password, encodeURIComponent(password), "client-secret-never-shown", "cd".repeat(32)])
        expect(stderr).not.toContain(secret);
    },
  );
});

describe("mcpkit --http --auth oauth with a --state sqlite:PATH that is not private", () => {
  // Before, a link at the database's name was followed: here into a file of notes, which SQLite
  // then reported as "file is not a database" (an empty one it would have made its database).
  test("a link at the database's name stops the start with one line naming the path, why and the fix; its target stays as it was", async () => {
    const folder = mkdtempSync(join(tmpdir(), "mcpkit-oauth-state-link-"));
    try {
      const notes = join(folder, "notes.txt");
      writeFileSync(notes, "private notes\n");
      const path = join(folder, "auth.db");
      symlinkSync(notes, path);
      const { code, stdout, stderr } = await runCli(
        [
          ...["--http", "127.0.0.1:0", "--auth", "oauth", "--upstream-issuer", "http://127.0.0.1:9"],
          ...["--upstream-client-id", "x", "--state", `sqlite:${path}`, "--state-key", "cd".repeat(32)],
        ],
        { env: { MCPKIT_UPSTREAM_CLIENT_SECRET: "client-secret-never-shown" }, timeoutMs: 30_000 },
      );
      expect(stdout).toBe("");
      expect(stderr.split("\n").filter((line) => line.startsWith("mcpkit:"))).toEqual([
        `mcpkit: cannot use the SQLite file ${path}: ${path} is a symbolic link; remove it, or pass --state (MCPKIT_STATE) a sqlite: path in a folder of your own that only you can write.`,
      ]);
      expect(code).toBe(2);
      expect(readFileSync(notes, "utf8")).toBe("private notes\n");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
