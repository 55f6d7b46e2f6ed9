/**
 * A Postgres store that accepts TCP connections and never answers (a blackholed database, a
 * hung proxy): every store call is bounded in time, so start-up fails and requests answer
 * 503 + Retry-After within the store timeout instead of hanging forever. The timeout is injected
 * (`storeTimeoutMs`) so the test waits a fraction of a second, on the server's own timer.
 * The first test needs nothing but Bun; the second runs a real Postgres (Debian's postgresql)
 * behind a relay that turns into a blackhole, and skips with one line without it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";
import { type AuthServer, createAuthorizationServer } from "../../src/mcp/auth-server/index.ts";
import { hasPostgres, startPostgres, type TestPostgres } from "../support/postgres.ts";
import { type Idp, SCOPES, startIdp } from "./harness.ts";

setDefaultTimeout(30_000);
const STORE_TIMEOUT_MS = 400;
const postgresHere = hasPostgres("requests against a blackholed Postgres store");

/** A TCP server on loopback that accepts every connection and never sends a byte. */
function startBlackhole() {
  const sockets = new Set<Bun.Socket<undefined>>();
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (socket) => void sockets.add(socket),
      data: () => undefined,
      close: (socket) => void sockets.delete(socket),
    },
  });
  return {
    port: server.port,
    stop() {
      for (const socket of sockets) socket.end();
      server.stop(true);
    },
  };
}

interface Relay {
  port: number;
  /** From now on nothing passes either way, and new connections are accepted and left hanging. */
  blackhole(): void;
  stop(): void;
}

/** A TCP relay to `targetPort` that can turn into a blackhole without closing anything. */
function startRelay(targetPort: number): Relay {
  type Side = { upstream?: Bun.Socket<undefined>; pending: Uint8Array[] };
  let holed = false;
  const open = new Set<{ end(): void }>();
  const server = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        client.data = { pending: [] };
        open.add(client);
        if (holed) return;
        const upstream = await Bun.connect({
          hostname: "127.0.0.1",
          port: targetPort,
          socket: {
            data: (_socket, chunk) => void (holed || client.write(chunk)),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        });
        open.add(upstream);
        client.data.upstream = upstream;
        for (const chunk of client.data.pending) upstream.write(chunk);
      },
      data(client, chunk) {
        if (holed) return;
        if (client.data.upstream) client.data.upstream.write(chunk);
        else client.data.pending.push(new Uint8Array(chunk));
      },
      close(client) {
        client.data.upstream?.end();
      },
    },
  });
  return {
    port: server.port,
    blackhole() {
      holed = true;
    },
    stop() {
      server.stop(true);
      for (const socket of open) socket.end();
    },
  };
}

let idp: Idp;
const logs: string[] = [];
const log = createLogger("debug", (line) => logs.push(line));

function configFor(state: string, publicUrl = "http://127.0.0.1:9") {
  return {
    publicUrl,
    upstream: {
      kind: "oidc" as const,
      issuer: idp.issuer,
      clientId: "mcpkit-upstream",
      clientSecret: "upstream-secret",
    },
    allow: ["alice@example.com=*"],
    state,
    stateKey: "cd".repeat(32),
    scopesSupported: SCOPES,
    storeTimeoutMs: STORE_TIMEOUT_MS,
  };
}

beforeAll(async () => {
  idp = await startIdp();
});
afterAll(async () => {
  await idp?.stop();
});

describe("a Postgres store that accepts connections and never answers", () => {
  test("start-up fails within the store timeout, naming the store, instead of hanging", async () => {
    const hole = startBlackhole();
    try {
      const started = performance.now();
      const error = await createAuthorizationServer(
        configFor(`postgres://mcpkit:secret-password@127.0.0.1:${hole.port}/mcpkit`),
        log,
      ).then(
        () => undefined,
        (reason: unknown) => reason as Error,
      );
      const elapsed = performance.now() - started;
      console.error(
        `blackholed store at start-up: failed after ${elapsed.toFixed(0)} ms (timeout ${STORE_TIMEOUT_MS} ms)`,
      );
      expect(error?.message).toContain(`did not answer within ${STORE_TIMEOUT_MS} ms`);
      expect(error?.message).not.toContain("secret-password");
      expect(elapsed).toBeLessThan(STORE_TIMEOUT_MS + 1500);
    } finally {
      hole.stop();
    }
  });
});

describe.skipIf(!postgresHere)("a Postgres store that goes silent under a running server", () => {
  let postgres: TestPostgres | undefined;
  let relay: Relay | undefined;
  let as: AuthServer | undefined;
  let server: ReturnType<typeof Bun.serve> | undefined;
  let base = "";

  beforeAll(async () => {
    postgres = startPostgres();
    relay = startRelay(Number(new URL(postgres.url).port));
    let handle: AuthServer["handle"] = async () => undefined;
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => (await handle(request)) ?? new Response("not found", { status: 404 }),
    });
    base = `http://127.0.0.1:${server.port}`;
    const url = new URL(postgres.url);
    url.port = String(relay.port);
    as = await createAuthorizationServer(configFor(url.href, base), log);
    handle = (request) => (as as AuthServer).handle(request);
  });
  afterAll(async () => {
    server?.stop(true);
    relay?.stop();
    await as?.close().catch(() => undefined);
    postgres?.stop();
  });

  test("a token request answers 503 + Retry-After within the store timeout", async () => {
    const refresh = () =>
      fetch(`${base}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", client_id: "c", refresh_token: "r" }).toString(),
      });
    // Healthy first: an unknown token is an ordinary refusal, answered by the database.
    expect((await refresh()).status).toBe(400);
    (relay as Relay).blackhole();
    const started = performance.now();
    const answer = await refresh();
    const elapsed = performance.now() - started;
    console.error(`blackholed store under load: 503 after ${elapsed.toFixed(0)} ms (timeout ${STORE_TIMEOUT_MS} ms)`);
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).not.toBeNull();
    expect(((await answer.json()) as { error: string }).error).toBe("temporarily_unavailable");
    expect(elapsed).toBeLessThan(STORE_TIMEOUT_MS + 1500);
    expect(await (as as AuthServer).storeReachable()).toBe(false);
  });
});
