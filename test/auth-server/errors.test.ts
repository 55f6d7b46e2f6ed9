/**
 * The authorization server's one error style (issue 24): each kind of `OAuthFailure` as the one
 * renderer answers it, and the one `onError` for everything a route throws (a generic 500/503
 * that says nothing of what failed, on the wire or in the log). The end-to-end checks run the
 * real routes in-process behind a loopback Bun.serve (harness.ts).
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createLogger } from "../../src/core/log.ts";
import {
  type FailureOptions,
  OAuthFailure,
  STORE_RETRY_AFTER_SECONDS,
  createOnError,
  renderFailure,
} from "../../src/mcp/auth-server/errors.ts";
import { scrubbed } from "../../src/core/scrubbed.ts";
import { readCapped, readForm } from "../../src/mcp/auth-server/http.ts";
import { StoreUnavailable } from "../../src/mcp/auth-server/store.ts";
import { type Harness, registerClient, startHarness } from "./harness.ts";

const JSON_HEADERS = {
  "content-type": "application/json",
  "cache-control": "no-store",
  pragma: "no-cache",
  "access-control-allow-origin": "*",
};
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  pragma: "no-cache",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

interface Row {
  kind: string;
  code: OAuthFailure["code"];
  description: string;
  options: FailureOptions;
  browser: boolean;
  status: number;
  headers: Record<string, string>;
  /** What the body must contain (JSON compared whole; a page by fragments; null: no body). */
  body: Record<string, string> | string[] | null;
}

const TABLE: Row[] = [
  {
    kind: "JSON to a client, 400 by default",
    code: "invalid_grant",
    description: "the refresh token is expired or revoked; sign in again.",
    options: {},
    browser: false,
    status: 400,
    headers: JSON_HEADERS,
    body: { error: "invalid_grant", error_description: "the refresh token is expired or revoked; sign in again." },
  },
  {
    kind: "JSON with its status and extra headers (Retry-After, WWW-Authenticate)",
    code: "temporarily_unavailable",
    description: "retry the refresh in a minute.",
    options: { status: 503, headers: { "retry-after": "60", "www-authenticate": 'Bearer error="x"' } },
    browser: false,
    status: 503,
    headers: { ...JSON_HEADERS, "retry-after": "60", "www-authenticate": 'Bearer error="x"' },
    body: { error: "temporarily_unavailable", error_description: "retry the refresh in a minute." },
  },
  {
    kind: "JSON description limited to RFC 6749 §5.2 characters",
    code: "invalid_request",
    description: 'say "hi"\\\u0007 — ok',
    options: {},
    browser: false,
    status: 400,
    headers: JSON_HEADERS,
    body: { error: "invalid_request", error_description: "say hi  ok" },
  },
  {
    kind: "a page title on a route clients call: still JSON",
    code: "invalid_request",
    description: "the parameter x appears more than once; send it once.",
    options: { page: "Invalid request" },
    browser: false,
    status: 400,
    headers: JSON_HEADERS,
    body: { error: "invalid_request", error_description: "the parameter x appears more than once; send it once." },
  },
  {
    kind: "a page on a browser route, escaped, with the page's security headers",
    code: "temporarily_unavailable",
    description: "Wait 7 seconds <and> try again.",
    options: { status: 429, page: "Too many <sign-in> attempts" },
    browser: true,
    status: 429,
    headers: PAGE_HEADERS,
    body: ["<h1>Too many &#60;sign-in&#62; attempts</h1>", "<p>Wait 7 seconds &#60;and&#62; try again.</p>"],
  },
  {
    kind: "a page keeps the failure's headers (Retry-After while the store is down)",
    code: "temporarily_unavailable",
    description: "try again in a minute.",
    options: { status: 503, page: "Temporarily unavailable", headers: { "retry-after": "30" } },
    browser: true,
    status: 503,
    headers: { ...PAGE_HEADERS, "retry-after": "30" },
    body: ["<h1>Temporarily unavailable</h1>"],
  },
  {
    kind: "the not-allowed page for a person the policy refuses",
    code: "access_denied",
    description: "The access policy of this server does not include your account.",
    options: { status: 403, signedInAs: "mallory@evil.example" },
    browser: true,
    status: 403,
    headers: PAGE_HEADERS,
    body: ["not allowed here", "<strong>mallory@evil.example</strong>", "does not include your account"],
  },
  {
    kind: "no body: 405 with Allow",
    code: "invalid_request",
    description: "this path answers POST, OPTIONS.",
    options: { status: 405, headers: { allow: "POST, OPTIONS" }, bodyless: true },
    browser: false,
    status: 405,
    headers: { allow: "POST, OPTIONS" },
    body: null,
  },
];

describe("renderFailure: every kind of failure as its reader expects it", () => {
  for (const row of TABLE) {
    test(row.kind, async () => {
      const response = renderFailure(new OAuthFailure(row.code, row.description, row.options), row.browser);
      expect(response.status).toBe(row.status);
      for (const [name, value] of Object.entries(row.headers))
        expect({ name, value: response.headers.get(name) }).toEqual({ name, value });
      const text = await response.text();
      if (row.body === null) expect(text).toBe("");
      else if (Array.isArray(row.body)) for (const fragment of row.body) expect(text).toContain(fragment);
      else expect(JSON.parse(text)).toEqual(row.body);
    });
  }

  test("back to the client's verified redirect URI: 302 with error, description, state and iss, never cached", () => {
    const failure = new OAuthFailure("access_denied", "the user denied access.", {
      redirect: { redirectUri: "http://127.0.0.1:9/cb?keep=1", state: "s t", issuer: "http://127.0.0.1:8080" },
      page: "ignored",
    });
    for (const browser of [true, false]) {
      const response = renderFailure(failure, browser);
      expect(response.status).toBe(302);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const location = new URL(response.headers.get("location") ?? "");
      expect(location.origin + location.pathname).toBe("http://127.0.0.1:9/cb");
      expect(Object.fromEntries(location.searchParams)).toEqual({
        keep: "1",
        error: "access_denied",
        error_description: "the user denied access.",
        state: "s t",
        iss: "http://127.0.0.1:8080",
      });
    }
    const stateless = renderFailure(
      new OAuthFailure("invalid_scope", "unknown scope.", {
        redirect: { redirectUri: "myapp://cb", state: undefined, issuer: "https://as.example" },
      }),
      true,
    );
    expect(new URL(stateless.headers.get("location") ?? "").searchParams.has("state")).toBe(false);
  });
});

describe("onError: the one handler of whatever a route throws", () => {
  const SECRETS = ["hunter2-store-pw", "tok_0123456789abcdef0123456789abcdef", "s3cr3t-client-value"];
  const leaky = () =>
    new TypeError(
      `query failed on postgres://mcpkit:${SECRETS[0]}@db.internal:5432/auth with Authorization: Bearer ${SECRETS[1]} client_secret=${SECRETS[2]}`,
    );

  function handler() {
    const lines: string[] = [];
    return { lines, onError: createOnError(createLogger("debug", (line) => lines.push(line))) };
  }

  test("an OAuthFailure is rendered as it says, and logs nothing", async () => {
    const { lines, onError } = handler();
    const response = onError(new OAuthFailure("invalid_grant", "sign in again."), { path: "/token", browser: false });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid_grant", error_description: "sign in again." });
    expect(lines).toEqual([]);
  });

  test("anything else is a generic 500: no internals or secrets in the body or the log", async () => {
    const { lines, onError } = handler();
    const response = onError(leaky(), { path: "/token", browser: false });
    expect(response.status).toBe(500);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({
      error: "server_error",
      error_description: "internal error; the server log has details.",
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("authorization server route failed");
    expect(lines[0]).toContain("TypeError");
    expect(lines[0]).toContain("/token");
    for (const secret of SECRETS) {
      expect(body).not.toContain(secret);
      expect(lines[0]).not.toContain(secret);
    }
    // Not an Error at all (a thrown string): still the same answer, and its text is not logged.
    const thrown = onError(`Bearer ${SECRETS[1]}`, { path: "/register", browser: false });
    expect(thrown.status).toBe(500);
    expect(lines.join("\n")).not.toContain(SECRETS[1]);
  });

  test("an unreachable store is a 503 with Retry-After (a page on browser routes), logged once a minute, scrubbed", async () => {
    const { lines, onError } = handler();
    const down = () => new StoreUnavailable(`the postgres state store is unreachable: ${leaky().message}`);
    const json = onError(down(), { path: "/token", browser: false });
    expect(json.status).toBe(503);
    expect(json.headers.get("retry-after")).toBe(String(STORE_RETRY_AFTER_SECONDS));
    expect(await json.json()).toEqual({
      error: "temporarily_unavailable",
      error_description: "The sign-in service cannot reach its storage right now; try again in a minute.",
    });
    const page = onError(down(), { path: "/authorize", browser: true });
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe(String(STORE_RETRY_AFTER_SECONDS));
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain("<h1>Temporarily unavailable</h1>");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("authorization state store unavailable");
    for (const secret of SECRETS) {
      expect(html).not.toContain(secret);
      expect(lines[0]).not.toContain(secret);
    }
  });

  test("scrubbed takes out URL credentials, secret-named values, bearer values and long token-like strings", () => {
    expect(scrubbed("connect postgres://user:pw@host/db failed")).toBe("connect postgres://[redacted]@host/db failed");
    expect(scrubbed('password="a b" token=xyz secret: q')).toBe(
      "password=[redacted] token=[redacted] secret: [redacted]",
    );
    expect(scrubbed("Authorization: Bearer abc.def")).not.toContain("abc.def");
    expect(scrubbed(`id ${"A".repeat(40)} end`)).toBe("id [redacted] end");
    expect(scrubbed("relation oauth_codes does not exist")).toBe("relation oauth_codes does not exist");
  });
});

describe("end to end: failures nobody threw on purpose, through the real dispatcher", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  test("a wrong method gets 405 with Allow and no body", async () => {
    const response = await fetch(`${h.base}/token`, { method: "GET" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST, OPTIONS");
    expect(await response.text()).toBe("");
  });

  test("a stored row that cannot be read is a generic 500 and one log line", async () => {
    const { client_id: clientId } = await registerClient(h.base);
    const db = new Database(join(h.dir, "state", "auth.db"));
    try {
      db.run("update oauth_clients set metadata = ? where client_id = ?", ["{not json, key=hunter2-row", clientId]);
    } finally {
      db.close();
    }
    const before = h.logs.length;
    const response = await fetch(`${h.base}/authorize?client_id=${encodeURIComponent(clientId)}`);
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({
      error: "server_error",
      error_description: "internal error; the server log has details.",
    });
    const logged = h.logs.slice(before).filter((line) => line.includes("authorization server route failed"));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("/authorize");
    expect(body + logged[0]).not.toContain("hunter2-row");
  });
});

describe("request bodies", () => {
  test("a body cut off on the way is the client's invalid_request (a page in a browser), not a server error", async () => {
    const cutOff = () =>
      new Request("http://127.0.0.1:9/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("grant_type=refresh"));
            controller.error(new Error("connection reset"));
          },
        }),
      });
    const failure = await readForm(cutOff()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthFailure);
    expect(failure).toMatchObject({ code: "invalid_request", status: 400, options: { page: "Invalid request" } });
    const registration = await readCapped(cutOff(), 1024, "invalid_client_metadata").catch((error: unknown) => error);
    expect(registration).toMatchObject({ code: "invalid_client_metadata", status: 400 });
  });
});
