/**
 * The MCP conformance suite's `authorization` command (both scenarios: RFC 8414 metadata and the
 * authorization-code grant) against `mcpkit --http --auth oauth` as a real process. The suite
 * prints an authorization URL for a person to open; this test is that person: it approves the
 * consent page, signs in at the local OIDC provider and lets the browser land on the suite's
 * callback, then the suite redeems the code itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HttpServerProcess } from "../http/support.ts";
import { REPO_ROOT } from "../support/mcp.ts";
import { freeLoopbackPort } from "../support/ports.ts";
import { type Harness, type Idp, registerClient, signIn, startIdp, startOauthProcess } from "./harness.ts";

const CONFORMANCE = join(REPO_ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

let idp: Idp;
let dir: string;
let server: HttpServerProcess;

beforeAll(async () => {
  idp = await startIdp();
  dir = mkdtempSync(join(tmpdir(), "mcpkit-oauth-conformance-"));
  server = await startOauthProcess(idp, dir, "alice@example.com=*", ["--toolsets", "boj"]);
});
afterAll(async () => {
  await server?.stop();
  await idp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("conformance authorization (against mcpkit --auth oauth)", () => {
  test("both scenarios pass (metadata endpoint, authorization-code grant), with the consent page approved and the sign-in done", async () => {
    const port = freeLoopbackPort();
    const client = await registerClient(server.base, {
      client_name: "conformance",
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
    });
    const run = Bun.spawn(
      [
        process.execPath,
        CONFORMANCE,
        "authorization",
        "--url",
        server.base,
        "--client-id",
        client.client_id,
        "--resource",
        server.url,
        "--port",
        String(port),
      ],
      { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" },
    );
    let out = "";
    const decoder = new TextDecoder();
    const reader = run.stdout.getReader();
    let authorizeUrl: string | undefined;
    while (!authorizeUrl) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value, { stream: true });
      authorizeUrl = /Access the following URL[^\n]*\n(\S+)/.exec(out)?.[1];
    }
    if (!authorizeUrl)
      throw new Error(`the suite printed no authorization URL:\n${out}\n${await new Response(run.stderr).text()}`);
    expect(authorizeUrl).toStartWith(`${server.base}/authorize?`);
    const { exit } = await signIn({ base: server.base, idp } as Harness, authorizeUrl as string);
    expect(exit.origin).toBe(`http://127.0.0.1:${port}`);
    await fetch(exit); // the browser lands on the suite's callback
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value);
    }
    const code = await run.exited;
    expect(out).toMatch(/✓ authorization-server-metadata-endpoint: \d+ passed, 0 failed/);
    expect(out).toMatch(/✓ authorization-code-grant: 1 passed, 0 failed/);
    expect(out).not.toMatch(/FAILURE|✗/);
    expect(code).toBe(0);
  }, 30_000);
});
