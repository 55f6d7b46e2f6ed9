/**
 * The ports tests hand to a process that must listen on a port it is given
 * (test/support/ports.ts). One came from binding port 0, an ephemeral port, and a parallel test's
 * outgoing connection took it before the child bound it: the quick-start test failed with "Failed
 * to start server. Is port 46553 in use?". Ports now come from below the ephemeral range.
 */
import { expect, test } from "bun:test";
import { connect } from "node:net";
import { ephemeralPortsFrom, freeLoopbackPort } from "../support/ports.ts";

test("a port for a child to listen on lies below the range outgoing connections draw from", () => {
  const ephemeral = ephemeralPortsFrom();
  expect(ephemeral).toBeGreaterThan(1024);
  for (let i = 0; i < 20; i++) {
    const port = freeLoopbackPort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(ephemeral);
  }
});

test("the port is free: a server listens on it at once, and an outgoing connection never gets it", async () => {
  const port = freeLoopbackPort();
  const server = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("ok") });
  try {
    expect(server.port).toBe(port);
    // The kernel's choice of a client's local port: from the ephemeral range, so never this one.
    const socket = connect({ host: "127.0.0.1", port });
    const localPort = await new Promise<number>((resolve, reject) => {
      socket.once("connect", () => resolve(socket.localPort ?? 0));
      socket.once("error", reject);
    });
    socket.destroy();
    expect(localPort).toBeGreaterThanOrEqual(ephemeralPortsFrom());
    expect(localPort).not.toBe(port);
  } finally {
    server.stop(true);
  }
});
