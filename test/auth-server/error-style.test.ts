/**
 * Issue 24: the authorization server has one error style. Its source is read as text and held
 * to it: one error type (`OAuthFailure`, plus the store's own "unreachable" signal that onError
 * renders), no module but errors.ts builds a failure's Response or its `error_description`, the
 * few success builders cannot carry an error status, and only the dispatcher hands what a route
 * throws to the one onError. A route that answered `new Response(…, { status: 403 })` or brought
 * back an `oauthError()` helper would fail here.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const AUTH_SERVER = join(ROOT, "src", "mcp", "auth-server");
const RENDERER = "src/mcp/auth-server/errors.ts";

/** Every source file of the authorization server, and its mount in the HTTP pipeline. */
function sources(): { path: string; code: string }[] {
  const files = readdirSync(AUTH_SERVER, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(AUTH_SERVER, name));
  files.push(join(ROOT, "src", "mcp", "http", "authorization-server.ts"));
  return files.map((file) => ({ path: relative(ROOT, file), code: withoutComments(readFileSync(file, "utf8")) }));
}

/** Comments may name anything; only code counts. (Strings with `//`, such as URLs, are kept.) */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

function occurrences(pattern: RegExp): Record<string, number> {
  const found: Record<string, number> = {};
  for (const { path, code } of sources()) {
    const count = code.match(new RegExp(pattern.source, "g"))?.length ?? 0;
    if (count > 0) found[path] = count;
  }
  return found;
}

describe("the authorization server's one error style", () => {
  test("the sources are where this test looks (it would pass vacuously otherwise)", () => {
    const paths = sources().map((source) => source.path);
    expect(paths).toContain(RENDERER);
    expect(paths).toContain("src/mcp/auth-server/routes/token.ts");
    expect(paths.length).toBeGreaterThan(20);
  });

  test("one error type: OAuthFailure, and the store's unreachable signal that onError answers 503 for", () => {
    expect(occurrences(/class \w+ extends \w*Error\b/)).toEqual({
      [RENDERER]: 1,
      "src/mcp/auth-server/store.ts": 1,
    });
    expect(sources().find((source) => source.path === RENDERER)?.code).toContain(
      "export class OAuthFailure extends Error",
    );
  });

  test("no module but the renderer builds a Response except the listed success builders", () => {
    // http.ts: jsonResponse (200/201) and redirect (302); pages.ts: htmlResponse (the consent
    // page); metadata.ts: the metadata and JWKS documents. Anything else is a failure's answer.
    expect(occurrences(/new Response\(|Response\.(json|redirect|error)\(/)).toEqual({
      [RENDERER]: 3,
      "src/mcp/auth-server/http.ts": 2,
      "src/mcp/auth-server/pages.ts": 1,
      "src/mcp/auth-server/routes/metadata.ts": 2,
    });
  });

  test("the success builders cannot carry an error status", () => {
    const http = sources().find((source) => source.path === "src/mcp/auth-server/http.ts")?.code ?? "";
    expect(http).toMatch(/export function jsonResponse\(body: unknown, status: 200 \| 201 = 200\): Response/);
    expect(http).toContain("new Response(null, { status: 302, headers: { location, ...NO_STORE } })");
    // A page as a Response: from the renderer, or the consent page with 200.
    expect(occurrences(/htmlResponse\(/)).toEqual({ [RENDERER]: 2, "src/mcp/auth-server/pages.ts": 2 });
    const pages = sources().find((source) => source.path === "src/mcp/auth-server/pages.ts")?.code ?? "";
    expect(pages).toMatch(/return htmlResponse\(document\("Allow access\? — mcpkit", body\), 200, cookies\);/);
    expect(occurrences(/status: [1-5]\d\d/)).not.toHaveProperty("src/mcp/auth-server/routes/metadata.ts");
  });

  test("an error status appears only in an OAuthFailure (or the renderer's own)", () => {
    const outside: string[] = [];
    for (const { path, code } of sources()) {
      if (path === RENDERER) continue;
      for (const match of code.matchAll(/status: ([45]\d\d)/g)) {
        // The nearest constructor before the status must be an OAuthFailure's.
        const before = code.slice(0, match.index);
        const failure = before.lastIndexOf("new OAuthFailure(");
        const other = Math.max(before.lastIndexOf("new Response("), before.lastIndexOf("Response.json("));
        if (failure < 0 || other > failure) outside.push(`${path}: ${match[0]}`);
      }
    }
    expect(outside).toEqual([]);
  });

  test("no module but the renderer writes an OAuth error body or redirect parameters", () => {
    // The JSON body `{ error, error_description }` and the redirect's `error`/`error_description` parameters.
    expect(occurrences(/error_description|["']error["']/)).toEqual({ [RENDERER]: 3 });
  });

  test("the older styles are gone", () => {
    expect(occurrences(/\b(oauthError|errorPage|notAllowedPage|storeUnavailable|redirectWithError)\(/)).toEqual({});
    expect(occurrences(/\b(BadRequest|CimdError|UpstreamError|UpstreamDenied)\b/)).toEqual({});
    // `{ error: Response }` / `{ error, description }` result unions and `Response | …` returns.
    expect(occurrences(/\{ error: (Response|string)/)).toEqual({});
    expect(occurrences(/: Response \| undefined|Response \| \{|instanceof Response/)).toEqual({});
  });

  test("one onError, created once, used by the dispatcher alone, which has no try/catch of its own", () => {
    expect(occurrences(/createOnError\(/)).toEqual({ [RENDERER]: 1, "src/mcp/auth-server/index.ts": 1 });
    expect(occurrences(/renderFailure\(/)).toEqual({ [RENDERER]: 4, "src/mcp/auth-server/index.ts": 1 });
    const index = sources().find((source) => source.path === "src/mcp/auth-server/index.ts")?.code ?? "";
    const dispatcher = index.slice(index.indexOf("function dispatcher("), index.indexOf("function methodNotAllowed("));
    expect(dispatcher).toContain(".catch((error: unknown) => onError(error,");
    expect(dispatcher).not.toMatch(/\btry\s*\{/);
  });
});
