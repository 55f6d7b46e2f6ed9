/**
 * --trusted-proxies: behind a reverse proxy every request comes from the proxy's address, so the
 * authorization server's per-address limits become one limit for everyone. With the option, a
 * trusted peer's X-Forwarded-For names the client; without it the header is ignored (a client can
 * forge it). The option's reading here, the real `mcpkit --http --auth oauth` process below.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../src/core/options.ts";
import { readHttpConfig } from "../../src/mcp/http/config.ts";
import type { HttpServerProcess } from "../http/support.ts";
import { runCli } from "../support/mcp.ts";
import { type Idp, startIdp, startOauthProcess } from "./harness.ts";

describe("--trusted-proxies (MCPKIT_TRUSTED_PROXIES)", () => {
  test("reads a comma list, spaces and empty items aside; absent, nothing is trusted", () => {
    const config = readHttpConfig({ http: "127.0.0.1:0", "trusted-proxies": " 127.0.0.1, 10.0.0.0/8 ,,::1 " });
    expect(config?.trustedProxies).toEqual(["127.0.0.1", "10.0.0.0/8", "::1"]);
    expect(readHttpConfig({ http: "127.0.0.1:0" })?.trustedProxies).toBeUndefined();
    expect(readHttpConfig({ http: "127.0.0.1:0", "trusted-proxies": " , " })?.trustedProxies).toBeUndefined();
  });

  test.each(["10.0.0.0/33", "nginx", "10.0.0.1:8080", "*"])(
    "a bad entry (%p) is refused naming the option, the entry and the expected form",
    (bad) => {
      const read = () => readHttpConfig({ http: "127.0.0.1:0", "trusted-proxies": `127.0.0.1, ${bad}, ::1` });
      expect(read).toThrow(ConfigError);
      expect(read).toThrow(
        `invalid --trusted-proxies (MCPKIT_TRUSTED_PROXIES): expected IP addresses or CIDR ranges separated by commas (prefix up to /32 for IPv4, /128 for IPv6), e.g. 127.0.0.1,10.0.0.0/8,::1 (got ${JSON.stringify(bad)})`,
      );
    },
  );

  test("from the environment too: a bad entry stops the start-up with that one line", async () => {
    const run = await runCli(["--http", "127.0.0.1:0"], {
      env: { MCPKIT_TRUSTED_PROXIES: "127.0.0.1,proxy.internal" },
      // A server that started (the option unknown) would run until killed.
      timeoutMs: 10_000,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "invalid --trusted-proxies (MCPKIT_TRUSTED_PROXIES): expected IP addresses or CIDR ranges separated by commas",
    );
    expect(run.stderr).toContain('(got "proxy.internal")');
  });
});

describe("mcpkit --http --auth oauth behind a proxy on loopback", () => {
  let idp: Idp;
  let dir: string;
  let trusting: HttpServerProcess;
  let plain: HttpServerProcess;

  beforeAll(async () => {
    idp = await startIdp();
    dir = mkdtempSync(join(tmpdir(), "mcpkit-trusted-proxies-"));
    const start = (name: string, extra: string[]) =>
      startOauthProcess(idp, join(dir, name), "alice@example.com=*", ["--toolsets", "boj", ...extra]);
    [trusting, plain] = await Promise.all([start("trusting", ["--trusted-proxies", "127.0.0.1"]), start("plain", [])]);
  });
  afterAll(async () => {
    await Promise.all([trusting?.stop(), plain?.stop()]);
    await idp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One GET /authorize (junk counts against the limit too), as a proxy forwarding `client` would send it. */
  const authorize = async (server: HttpServerProcess, client: string) => {
    const response = await fetch(`${server.base}/authorize?client_id=nobody`, {
      headers: { "x-forwarded-for": client },
      redirect: "manual",
    });
    await response.body?.cancel();
    return response.status;
  };

  /** Sends /authorize as `client` until the per-address limit answers 429; how many were admitted. */
  const exhaust = async (server: HttpServerProcess, client: string) => {
    // Well above the per-minute limit (60), so a limit that never comes fails the test quickly.
    for (let admitted = 0; admitted < 500; admitted++) {
      if ((await authorize(server, client)) === 429) return admitted;
    }
    throw new Error(`no 429 after 500 requests as ${client}`);
  };

  test("with --trusted-proxies 127.0.0.1, clients told apart by X-Forwarded-For have their own limits", async () => {
    expect(await exhaust(trusting, "203.0.113.7")).toBeGreaterThan(0);
    expect(await authorize(trusting, "203.0.113.7")).toBe(429);
    // Another client behind the same proxy is admitted, and so is the proxy's own request.
    expect(await authorize(trusting, "203.0.113.8")).not.toBe(429);
    expect(await authorize(trusting, "198.51.100.1, 203.0.113.9")).not.toBe(429);
    // What a client writes left of the proxy's entry does not move it to another limit.
    expect(await authorize(trusting, "203.0.113.8, 203.0.113.7")).toBe(429);
  });

  test("without it the header is ignored: every client shares the loopback peer's limit", async () => {
    expect(await exhaust(plain, "203.0.113.7")).toBeGreaterThan(0);
    expect(await authorize(plain, "203.0.113.8")).toBe(429);
    expect(await authorize(plain, "198.51.100.1, 203.0.113.9")).toBe(429);
  });
});
