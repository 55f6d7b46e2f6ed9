/**
 * mcpkit.subscriptions.open: the 2026-07-28 subscriptions (`subscriptions/listen`) open now, on
 * stdio and over HTTP, as a real Prometheus scrape of the process shows it. A subscription counts
 * from its acknowledgement until it is cancelled or its client leaves.
 */
import { describe, expect, test } from "bun:test";
import { openStream, readUntil, request, stdioCall, stdioMessages, until } from "../modern/support.ts";
import { startHttpServer } from "../http/support.ts";
import { freeLoopbackPort } from "../support/ports.ts";
import { startRawServer } from "../support/raw-stdio.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

const later = cleanupsAfterEach();
const LISTEN = { notifications: { toolsListChanged: true } };

function prometheusEnv(): { env: Record<string, string>; scrape: () => Promise<string | undefined> } {
  const port = freeLoopbackPort();
  return {
    env: {
      OTEL_METRICS_EXPORTER: "prometheus",
      OTEL_TRACES_EXPORTER: "none",
      OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
      OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
    },
    scrape: async () => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return /^mcpkit_subscriptions_open(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
    },
  };
}

/** Scrapes until the gauge reads `value` (the exporter may still be starting, the server still noticing a client leave); the test's timeout bounds it. */
async function scrapedUntil(scrape: () => Promise<string | undefined>, value: string): Promise<string | undefined> {
  for (;;) {
    const seen = await scrape().catch(() => undefined);
    if (seen === value) return seen;
    await Bun.sleep(10);
  }
}

describe("mcpkit.subscriptions.open", () => {
  test("stdio: two subscriptions count 2; cancelling one leaves 1", async () => {
    const { env, scrape } = prometheusEnv();
    const raw = startRawServer(["--toolsets", "fs", "--root", import.meta.dir], env);
    later(() => raw.kill("SIGKILL"));
    await stdioCall(raw, "tools/list");
    expect(await scrapedUntil(scrape, "0")).toBe("0");
    for (const id of ["s1", "s2"]) raw.send(request("subscriptions/listen", LISTEN, id));
    const acknowledged = () =>
      stdioMessages(raw).filter((message) => message.method === "notifications/subscriptions/acknowledged").length;
    await until(() => acknowledged() === 2, "both acknowledgements");
    expect(await scrape()).toBe("2");
    raw.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "s1" } });
    // Lines are read in order: once a later request is answered, the cancellation was handled.
    await stdioCall(raw, "tools/list");
    expect(await scrape()).toBe("1");
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
  });

  test("HTTP: an open listen stream counts 1, and 0 once its client leaves", async () => {
    const { env, scrape } = prometheusEnv();
    const server = await startHttpServer(["--toolsets", "fs", "--root", import.meta.dir], { env });
    later(() => server.stop());
    expect(await scrapedUntil(scrape, "0")).toBe("0");
    const body = request("subscriptions/listen", LISTEN, "http-sub");
    const { response: reply, aborter } = await openStream(server.url, body);
    expect(reply.status).toBe(200);
    const reader = reply.body!.getReader();
    await readUntil(reader, (read) => read.includes("acknowledged"));
    expect(await scrape()).toBe("1");
    aborter.abort();
    await reader.cancel().catch(() => {});
    expect(await scrapedUntil(scrape, "0")).toBe("0");
  });
});
