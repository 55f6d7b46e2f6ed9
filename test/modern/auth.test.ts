/**
 * Bearer authorization in the 2026-07-28 era (`--auth jwt` in front of a real authorization
 * server on loopback): a modern request needs a token like any other, tools/list and the other
 * lists show only what the token's scopes allow and are `cacheScope: "private"`, a call beyond the
 * token's scopes is refused with 403 insufficient_scope, and the caller's own view of discover is
 * the public one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AuthServer, type HttpServerProcess, startAuthServer, startHttpServer } from "../http/support.ts";
import { type Json, headersFor, post, request } from "./support.ts";

let auth: AuthServer;
let server: HttpServerProcess;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-modern-auth-"));
  writeFileSync(join(root, "a.txt"), "a");
  auth = await startAuthServer();
  server = await startHttpServer(["--toolsets", "boj,fs", "--root", root, "--auth", "jwt", "--issuer", auth.issuer]);
});

afterAll(async () => {
  await server?.stop();
  await auth?.stop();
  rmSync(root, { recursive: true, force: true });
});

const bearer = async (scope: string) => ({
  authorization: `Bearer ${await auth.token({ scope, resource: server.url })}`,
});

describe("the 2026-07-28 era behind --auth jwt", () => {
  test("without a token: 401 with the challenge, before anything else is looked at", async () => {
    const { status, headers } = await post(server.url, request("tools/list"));
    expect(status).toBe(401);
    expect(headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  test("tools/list shows the token's tools only, and is private; a token for everything is private too", async () => {
    const fsOnly = await post(server.url, request("tools/list"), await bearer("fs:read"));
    expect(fsOnly.status).toBe(200);
    expect(fsOnly.response.result.tools.map((t: Json) => t.name)).toEqual(["fs_search_by_time"]);
    expect(fsOnly.response.result.cacheScope).toBe("private");
    const all = await post(server.url, request("tools/list"), await bearer("*"));
    expect(all.response.result.tools.length).toBe(8);
    expect(all.response.result.cacheScope).toBe("private");
  });

  test("resources and prompts follow the token's toolsets: none for an fs-only token", async () => {
    const headers = await bearer("fs:read");
    const resources = await post(server.url, request("resources/list"), headers);
    expect(resources.response.result.resources).toEqual([]);
    expect(resources.response.result.cacheScope).toBe("private");
    const prompts = await post(server.url, request("prompts/list"), headers);
    expect(prompts.response.result.prompts).toEqual([]);
  });

  test("a call beyond the token's scopes: 403 insufficient_scope with the scope to ask for; within them it runs", async () => {
    const headers = await bearer("fs:read");
    const refused = await post(
      server.url,
      request("tools/call", { name: "boj_list_databases", arguments: {} }, "r1"),
      headers,
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="boj:read"');
    expect(refused.response.id).toBe("r1");
    const allowed = await post(
      server.url,
      request("tools/call", { name: "fs_search_by_time", arguments: { timeField: "modified" } }),
      headers,
    );
    expect(allowed.status).toBe(200);
    expect(allowed.response.result.structuredContent.matches.map((m: Json) => m.path)).toEqual(["a.txt"]);
  });

  test("server/discover is the same for every caller: public", async () => {
    const { response } = await post(server.url, request("server/discover"), await bearer("fs:read"));
    expect(response.result.cacheScope).toBe("public");
    expect(response.result.capabilities.tools).toBeDefined();
  });
});

describe("open subscriptions per user (review of issue 20)", () => {
  test("past --max-sessions-per-subject one user's next subscriptions/listen gets 429 + Retry-After; another user still gets one", async () => {
    const capped = await startHttpServer([
      ...["--toolsets", "boj", "--auth", "jwt", "--issuer", auth.issuer],
      ...["--max-sessions", "8", "--max-sessions-per-subject", "1"],
    ]);
    const open: AbortController[] = [];
    const listen = async (id: string, sub: string) => {
      const token = await auth.token({
        scope: "*",
        resource: capped.url,
        mutate: (_header, payload) => {
          payload.sub = sub;
        },
      });
      const body = request("subscriptions/listen", { notifications: { toolsListChanged: true } }, id);
      const aborter = new AbortController();
      const response = await fetch(capped.url, {
        method: "POST",
        headers: { ...headersFor(body), authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        signal: aborter.signal,
      });
      if (response.status === 200) open.push(aborter);
      return response;
    };
    try {
      expect((await listen("a1", "alice")).status).toBe(200);
      const refused = await listen("a2", "alice");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(((await refused.json()) as Json).error.message).toContain("--max-sessions-per-subject");
      expect((await listen("b1", "bob")).status).toBe(200);
    } finally {
      for (const aborter of open) aborter.abort();
      await capped.stop();
    }
  });
});
