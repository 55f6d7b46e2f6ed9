/**
 * docs/contracts/oj.md §3: the shared HTTP client against the fake craboj server over real
 * sockets (body cap, Content-Type, bearer header, redirects, timeout, network failures).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/core/log.ts";
import { ErrorCode, ProtocolError } from "../../src/core/tool.ts";
import { type FakeCraboj, startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { freeLoopbackPort } from "../support/ports.ts";
import { MAX_BODY_BYTES, OjHttpClient, decodeJsonBody, failureWords } from "../../src/toolsets/oj/http.ts";

let fake: FakeCraboj;
let other: FakeCraboj;
beforeAll(() => {
  fake = startFakeCraboj({ tokens: ["tok-123"] });
  other = startFakeCraboj();
});
afterAll(async () => {
  await fake.stop();
  await other.stop();
});

const client = (token?: string, timeoutMs = 30_000) =>
  new OjHttpClient({ baseUrl: fake.url, token, timeoutMs }, silentLogger);

async function protocolErrorOf(promise: Promise<unknown>): Promise<ProtocolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error("expected a ProtocolError");
}

describe("body cap (contract §3)", () => {
  test("a 2 MiB body is read as exactly 1,048,576 bytes", async () => {
    const response = await client("tok-123").request("/api/v1/problems/leetcode/big-error");
    expect(response.status).toBe(500);
    expect(response.body.byteLength).toBe(MAX_BODY_BYTES);
    expect(MAX_BODY_BYTES).toBe(1_048_576);
    expect(response.truncated).toBe(true);
  });

  test("a body of exactly 1 MiB is complete, not truncated", async () => {
    fake.override("GET", "/exact", () => new Response(new Uint8Array(MAX_BODY_BYTES).fill(0x62), { status: 500 }));
    const response = await client("tok-123").request("/exact");
    expect(response.body.byteLength).toBe(MAX_BODY_BYTES);
    expect(response.truncated).toBe(false);
  });

  test("an endless body: reading stops at the cap instead of waiting for the end", async () => {
    const chunk = new Uint8Array(65_536).fill(0x7a);
    const hungUp = Promise.withResolvers<void>();
    fake.override(
      "GET",
      "/endless",
      () =>
        new Response(
          new ReadableStream({
            pull: (controller) => {
              controller.enqueue(chunk);
            },
            cancel: () => hungUp.resolve(),
          }),
          {
            status: 500,
            headers: { "content-type": "text/plain" },
          },
        ),
    );
    // The request's timeout comes after the test's own: only the cap can end the read in time.
    const response = await client("tok-123", 60_000).request("/endless");
    expect(response.body.byteLength).toBe(MAX_BODY_BYTES);
    expect(response.truncated).toBe(true);
    // And it hung up: the server sees its stream cancelled (a client that kept reading never would).
    await hungUp.promise;
  });
});

describe("Content-Type (contract §3)", () => {
  test("only application/json and application/problem+json count as JSON", async () => {
    const http = client("tok-123");
    expect((await http.request("/api/v1/problems/leetcode/1")).isJson).toBe(true);
    expect((await http.request("/api/v1/problems/leetcode/nope")).isJson).toBe(true); // problem+json 404
    expect((await http.request("/api/v1/problems/leetcode/html-error")).isJson).toBe(false);
    fake.override(
      "GET",
      "/upper",
      () => new Response("{}", { headers: { "content-type": "Application/JSON; charset=utf-8" } }),
    );
    expect((await http.request("/upper")).isJson).toBe(true);
  });
});

describe("JSON depth (contract §5)", () => {
  const nested = (depth: number) => `${'{"a":['.repeat(depth / 2)}"[{[{"${"]}".repeat(depth / 2)}`;

  test("a success body nested up to 64 levels is decoded; one level more is refused before parsing", async () => {
    const http = client("tok-123");
    const answer = (body: string) => () => new Response(body, { headers: { "content-type": "application/json" } });
    fake.override("GET", "/deep-64", answer(nested(64)));
    fake.override("GET", "/deep-66", answer(nested(66)));
    // Brackets inside strings are text, not nesting.
    expect(JSON.stringify(decodeJsonBody(await http.request("/deep-64")))).toBe(nested(64));
    const error = await protocolErrorOf(
      Promise.resolve().then(async () => decodeJsonBody(await http.request("/deep-66"))),
    );
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe(
      `the craboj server at ${new URL(fake.url).host} answered GET /deep-66 with JSON nested deeper than 64 levels: check --oj-base-url (OJ_BASE_URL)`,
    );
  });
});

describe("bearer token (contract §3)", () => {
  test("with a token every request carries it; without one no Authorization header is sent", async () => {
    fake.requests.length = 0;
    await client("tok-123").request("/api/v1/problems/leetcode/1");
    await client("tok-123").request("/api/v1/similar", { method: "POST", json: { query: "abc" } });
    await client("tok-123").request("/status");
    expect(fake.requests.map((r) => r.authorization)).toEqual(["Bearer tok-123", "Bearer tok-123", "Bearer tok-123"]);

    fake.requests.length = 0;
    const response = await client().request("/status");
    expect(response.status).toBe(401);
    expect(fake.requests.map((r) => r.authorization)).toEqual([null]);
  });

  test("redirects within the configured origin are followed, with the token", async () => {
    fake.requests.length = 0;
    const same = await client("tok-123").request("/api/v1/problems/leetcode/redirect");
    expect(same.status).toBe(200);
    fake.override(
      "GET",
      "/absolute",
      () => new Response(null, { status: 301, headers: { location: `${fake.url}/status` } }),
    );
    const absolute = await client("tok-123").request("/absolute");
    expect(absolute.status).toBe(200);
    expect(fake.requests.map((r) => [r.target, r.authorization])).toEqual([
      ["/api/v1/problems/leetcode/redirect", "Bearer tok-123"],
      ["/api/v1/problems/leetcode/1", "Bearer tok-123"],
      ["/absolute", "Bearer tok-123"],
      ["/status", "Bearer tok-123"],
    ]);
  });

  test("a redirect to another origin is refused, naming where it led and the flag; nothing is sent there", async () => {
    const port = fake.url.split(":").at(-1);
    const elsewhere = [
      // Another host: its answer (a cloud metadata endpoint's, say) would be relayed as craboj's.
      { method: "GET" as const, status: 302, location: `${other.url}/latest/meta-data/` },
      // A POST redirected by 307 would carry its body there.
      { method: "POST" as const, status: 307, location: `${other.url}/api/v1/similar` },
      // The same port under another name, and the other scheme, are other origins too.
      { method: "GET" as const, status: 308, location: `http://localhost:${port}/status` },
      { method: "GET" as const, status: 302, location: `https://127.0.0.1:${port}/status` },
    ];
    for (const { method, status, location } of elsewhere) {
      fake.override(method, "/away", () => new Response(null, { status, headers: { location } }));
      other.requests.length = 0;
      fake.requests.length = 0;
      const json = method === "POST" ? { query: "abc" } : undefined;
      const error = await protocolErrorOf(client("tok-123").request("/away", { method, json }));
      const target = new URL(location);
      expect(error.code).toBe(ErrorCode.InternalError);
      expect(error.message).toBe(
        `the craboj server at ${new URL(fake.url).host} redirected ${method} /away to another origin, ${target.origin}, which is not followed: its answer would be taken for the craboj server's. Check --oj-base-url (OJ_BASE_URL): if the server has moved to ${target.origin}, set it to that`,
      );
      expect(fake.requests.map((r) => r.target)).toEqual(["/away"]);
      expect(other.requests).toEqual([]);
    }
  });

  test("more than 10 redirects is a protocol error", async () => {
    const error = await protocolErrorOf(client("tok-123").request("/api/v1/problems/leetcode/redirect-loop"));
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toContain("redirected more than 10 times for GET /api/v1/problems/leetcode/redirect-loop");
    expect(error.message).toContain("check --oj-base-url (OJ_BASE_URL)");
  });
});

describe("timeout and network failures (contract §3, §5)", () => {
  test("a server that never answers fails within the configured timeout", async () => {
    const started = performance.now();
    const error = await protocolErrorOf(client("tok-123", 300).request("/api/v1/problems/leetcode/hang"));
    const elapsed = performance.now() - started;
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toContain("timed out");
    // Not before the timeout; that it fires at all is the "timed out" above (without it, no answer).
    expect(elapsed).toBeGreaterThanOrEqual(290);
  });

  test("a refused connection is a protocol error naming the host, the cause, the request and the flag to check", async () => {
    // Outside the ephemeral range, so no other test's server is given it meanwhile (ports.ts).
    const port = freeLoopbackPort();
    const http = new OjHttpClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 30_000 }, silentLogger);
    const error = await protocolErrorOf(http.request("/status"));
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe(
      `cannot reach the craboj server at 127.0.0.1:${port} (connection refused) for GET /status: check --oj-base-url (OJ_BASE_URL) and that the server is running`,
    );
  });

  test("a TLS mismatch says so; each network error code gets words and a hint (checked without connecting)", async () => {
    // https:// against the fake's plain-HTTP port.
    const tls = await protocolErrorOf(
      new OjHttpClient({ baseUrl: fake.url.replace("http:", "https:"), timeoutMs: 30_000 }, silentLogger).request(
        "/status",
      ),
    );
    expect(tls.message).toMatch(
      /^cannot reach the craboj server at 127\.0\.0\.1:\d+ \(TLS failed: \w+\) for GET \/status: check --oj-base-url \(OJ_BASE_URL\): http or https must match/,
    );
    expect(failureWords("ENOTFOUND")).toEqual([
      "host name not found",
      "check --oj-base-url (OJ_BASE_URL) and the network's DNS",
    ]);
    expect(failureWords("EHOSTUNREACH")[0]).toBe("host unreachable");
    expect(failureWords("CERT_HAS_EXPIRED")[0]).toBe("TLS failed: CERT_HAS_EXPIRED");
    expect(failureWords("")).toEqual(["network error", "check --oj-base-url (OJ_BASE_URL)"]);
  });

  test("a connection closed before any response is a protocol error", async () => {
    const listener = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { open: (socket) => void socket.end(), data: () => {} },
    });
    try {
      const http = new OjHttpClient({ baseUrl: `http://127.0.0.1:${listener.port}`, timeoutMs: 30_000 }, silentLogger);
      const error = await protocolErrorOf(http.request("/api/v1/daily?domain=com&date=2024-01-01"));
      expect(error.code).toBe(ErrorCode.InternalError);
      expect(error.message).toStartWith(
        `cannot reach the craboj server at 127.0.0.1:${listener.port} (the connection closed before a complete answer) for GET /api/v1/daily?domain=com&date=2024-01-01: check --oj-base-url`,
      );
    } finally {
      listener.stop(true);
    }
  });

  test("a cancelled call stops the request", async () => {
    const controller = new AbortController();
    const pending = client("tok-123").request("/api/v1/problems/leetcode/hang", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await protocolErrorOf(pending);
    expect(error.message).toContain("cancelled");
  });
});
