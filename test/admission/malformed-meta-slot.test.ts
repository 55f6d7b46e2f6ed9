/**
 * Issue 34 H3 (found in review): a tools/call whose params._meta is not an object is answered
 * -32602. The dispatcher used to take its admission slot before reading `_meta`, and nothing gave
 * it back, so each such call leaked a running slot for good (or a queue place that later took one).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import type { Json } from "../modern/support.ts";
import { until } from "../modern/support.ts";
import { type RawServer, startRawServer } from "../support/raw-stdio.ts";

const FIXTURE = resolve(import.meta.dir, "fixtures/server.ts");
const call = (id: number, name: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: name === "probe_echo" ? { text: `call ${id}` } : {}, ...extra },
});

describe("a tools/call with a malformed _meta gives its slot back", () => {
  let raw: RawServer | undefined;
  afterEach(() => raw?.kill());

  test("admitted at once: the next call runs (--max-calls 1, no queue)", async () => {
    raw = startRawServer(["--max-calls", "1", "--max-queued-calls", "0"], {}, [process.execPath, FIXTURE]);
    await raw.initialize();
    raw.send(call(1, "probe_echo", { _meta: "not an object" }));
    expect(((await raw.response(1)) as Json).error.code).toBe(-32602);
    raw.send(call(2, "probe_echo"));
    const answer = (await raw.response(2)) as Json;
    expect(answer.error).toBeUndefined();
    expect(answer.result.content[0].text).toBe("call 2");
  });

  test("admitted after waiting: once the running call ends, the next call runs", async () => {
    raw = startRawServer(["--max-calls", "1", "--max-queued-calls", "1"], {}, [process.execPath, FIXTURE]);
    const server = raw;
    await server.initialize();
    server.send(call(1, "probe_hold"));
    await until(() => server.stderr().includes("probe_hold started (1 held)"), "the held call");
    server.send(call(2, "probe_echo", { _meta: [] }));
    expect(((await server.response(2)) as Json).error.code).toBe(-32602);
    server.kill("SIGUSR2");
    expect(((await server.response(1)) as Json).result.content[0].text).toBe("released");
    server.send(call(3, "probe_echo"));
    const answer = (await server.response(3)) as Json;
    expect(answer.error).toBeUndefined();
    expect(answer.result.content[0].text).toBe("call 3");
  });
});
