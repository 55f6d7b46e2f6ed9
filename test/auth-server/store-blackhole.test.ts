/**
 * A Postgres store that accepts TCP connections and never answers (a blackholed database, a
 * hung proxy): every store call is bounded in time, so start-up fails and requests answer
 * 503 + Retry-After within the store timeout instead of hanging forever. The timeout is injected
 * (`storeTimeoutMs`) so the test waits a fraction of a second, on the server's own timer.
 * It needs nothing but Bun. A store that goes silent under a running server (a real Postgres
 * behind a relay that stops forwarding, --state-timeout-ms through the command line) is
 * store-down.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";
import { createAuthorizationServer } from "../../src/mcp/auth-server/index.ts";
import { type Idp, SCOPES, startIdp } from "./harness.ts";

setDefaultTimeout(30_000);
const STORE_TIMEOUT_MS = 400;

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
      // That it failed at all is the timeout (a blackhole never answers); no bound on the clock,
      // which a busy machine stretches.
    } finally {
      hole.stop();
    }
  });
});
