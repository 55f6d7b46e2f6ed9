/**
 * The SDK client's `auth()` on the client ID metadata document path (the DCR path is in
 * flow.test.ts and process.test.ts): no registration request, `client_id` = the document's https
 * URL, consent, sign-in at the IdP, code, token, a call to /mcp, a refresh.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/mcp.ts";
import { hasSystemTool } from "../support/system-tools.ts";

const hasOpenssl = hasSystemTool(
  "openssl",
  "openssl",
  "the CIMD sign-in test (a TLS certificate for the metadata document)",
);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-cimd-tls-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.skipIf(!hasOpenssl)(
  "auth() with a clientMetadataUrl signs in without registering, and the token works and refreshes",
  async () => {
    const cert = join(dir, "cert.pem");
    const key = join(dir, "key.pem");
    const made = Bun.spawnSync(
      [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stderr: "pipe" },
    );
    expect(made.exitCode).toBe(0);
    const run = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures/cimd-sdk-flow.ts"), cert, key], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_EXTRA_CA_CERTS: cert },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    if (code !== 0) throw new Error(`the CIMD flow failed (exit ${code}):\n${stderr}\n${stdout}`);
    const outcome = JSON.parse(stdout.trim().split("\n").at(-1) as string);
    expect(outcome.first).toBe("REDIRECT");
    expect(outcome.clientId).toBe(outcome.clientMetadataUrl);
    expect(outcome.registered.client_id).toBe(outcome.clientMetadataUrl);
    expect(outcome.second).toBe("AUTHORIZED");
    expect(outcome.mcp.clientId).toBe(outcome.clientMetadataUrl);
    expect(outcome.mcp.subject).toBe("oidc:alice-sub");
    expect(outcome.refreshed).toBe("AUTHORIZED");
    // Fetched at authorize and (within its max-age) served from the cache afterwards.
    expect(outcome.documentFetches).toBeGreaterThanOrEqual(1);
    expect(outcome.documentFetches).toBeLessThanOrEqual(2);
  },
  30_000,
);
