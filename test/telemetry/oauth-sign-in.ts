/**
 * `mcpkit --http --auth oauth` (oauth2-mock-server as the IdP, SQLite state in a temporary folder)
 * with a client signed in through it by the SDK's `auth`: what the sign-in and secrets tests share.
 * Everything started is ended through `later`.
 */
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { type Harness, type Idp, signIn, startIdp } from "../auth-server/harness.ts";
import { MemoryProvider } from "../auth-server/sdk-client.ts";
import { type HttpServerProcess, startHttpServer } from "../http/support.ts";

export interface SignedIn {
  server: HttpServerProcess;
  idp: Idp;
  provider: MemoryProvider;
  /** The authorization code mcpkit issued to the client. */
  code: string;
}

/** Starts the IdP and mcpkit (`args` after the OAuth ones, `env` as given), then signs alice in. */
export async function signedInThroughOAuth(
  later: (cleanup: () => unknown) => void,
  args: string[],
  env: Record<string, string>,
): Promise<SignedIn> {
  const idp = await startIdp();
  later(() => idp.stop());
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-otel-oauth-"));
  later(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startHttpServer(
    [
      ...["--auth", "oauth", "--upstream-issuer", idp.issuer, "--upstream-client-id", "mcpkit-upstream"],
      ...["--allow", "alice@example.com=boj:read", "--state", `sqlite:${join(dir, "auth.db")}`, "--toolsets", "boj"],
      ...args,
    ],
    { env },
  );
  later(() => server.stop());
  const provider = new MemoryProvider("http://127.0.0.1:9/callback");
  expect(await auth(provider, { serverUrl: server.url })).toBe("REDIRECT");
  const { exit } = await signIn({ base: server.base, idp } as Harness, (provider.authorizationUrl as URL).href);
  const code = exit.searchParams.get("code") ?? "";
  expect(await auth(provider, { serverUrl: server.url, authorizationCode: code })).toBe("AUTHORIZED");
  return { server, idp, provider, code };
}
