/**
 * Pure pieces of the `oj` toolset, checked directly: the properties of docs/contracts/oj.md (base
 * URL, truncation, fallback cut) and its rendering properties (format_number, html_to_markdown,
 * percentages, encoding, the CN date).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { DEFAULT_TIMEOUT_MS, checkBaseUrl, readOjConfig } from "../../src/toolsets/oj/config.ts";
import { isCalendarDate, todayFor } from "../../src/toolsets/oj/dates.ts";
import { encodeComponent } from "../../src/toolsets/oj/encode.ts";
import { formatApiError, takeScalars } from "../../src/toolsets/oj/errors.ts";
import {
  MAX_OUTPUT_BYTES,
  TRUNCATION_SUFFIX,
  formatDecimal,
  formatFixed,
  formatNumber,
  truncateOutput,
} from "../../src/toolsets/oj/format.ts";
import { NO_DESCRIPTION, escapeMarkup, htmlToMarkdown, looksLikeHtml } from "../../src/toolsets/oj/html/to-markdown.ts";
import type { UpstreamResponse } from "../../src/toolsets/oj/http.ts";
import { createSanitizer } from "../../src/toolsets/oj/sanitize.ts";
import { readRestOf, renderProblem, renderSimilar, renderStatus, toProblemView } from "../../src/toolsets/oj/render.ts";
import { fitOutput } from "../../src/toolsets/oj/tools/shared.ts";
import { normalizeQuery } from "../../src/toolsets/oj/tools/resolve-problem.ts";
import { createLogger } from "../../src/core/log.ts";
import { oj } from "../../src/toolsets/oj/index.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("base URL (rule S1.1)", () => {
  test("rule S1.1's examples (contract §2.1)", () => {
    expect(checkBaseUrl("https://example.com/api/v1").ok).toBe(false);
    expect(checkBaseUrl("https://example.com?foo=1").ok).toBe(false);
    expect(checkBaseUrl("ftp://example.com").ok).toBe(false);
    expect(checkBaseUrl("not a url").ok).toBe(false);
    expect(checkBaseUrl("https://example.com")).toEqual({ ok: true, baseUrl: "https://example.com" });
    expect(checkBaseUrl("https://example.com/")).toEqual({ ok: true, baseUrl: "https://example.com" });
    expect(checkBaseUrl("https://host:8080/")).toEqual({ ok: true, baseUrl: "https://host:8080" });
  });

  test("fragments, empty queries and credentials are refused too", () => {
    for (const bad of [
      "https://example.com#top",
      "https://example.com/?",
      "https://user:pw@example.com",
      "https://user@example.com/",
      "http://",
      "https://example.com//",
    ]) {
      expect(checkBaseUrl(bad).ok).toBe(false);
    }
  });

  test("for any URL built from parts: accepted iff http(s), no credentials, path '' or '/', no query or fragment; stored without a trailing '/'", () => {
    const parts = fc.record({
      scheme: fc.constantFrom("http", "https", "ftp", "ws", "file", "HTTPS"),
      user: fc.constantFrom("", "user@", "user:secret@"),
      host: fc.constantFrom("example.com", "craboj.zeabur.app", "127.0.0.1", "[::1]", "xn--bcher-kva.example"),
      port: fc.constantFrom("", ":8080", ":1"),
      path: fc.constantFrom("", "/", "/api", "/api/v1", "/a/", "//"),
      query: fc.constantFrom("", "?", "?foo=1"),
      fragment: fc.constantFrom("", "#", "#frag"),
    });
    fc.assert(
      fc.property(parts, (p) => {
        const text = `${p.scheme}://${p.user}${p.host}${p.port}${p.path}${p.query}${p.fragment}`;
        const expected =
          ["http", "https"].includes(p.scheme.toLowerCase()) &&
          p.user === "" &&
          (p.path === "" || p.path === "/") &&
          p.query === "" &&
          p.fragment === "";
        const checked = checkBaseUrl(text);
        expect(checked.ok).toBe(expected);
        if (checked.ok) {
          expect(checked.baseUrl.endsWith("/")).toBe(false);
          expect(checked.baseUrl).toBe(`${p.scheme.toLowerCase()}://${p.host}${p.port}`);
        }
      }),
      { numRuns: 400 },
    );
  });

  test("for any string: an accepted value is stored as an origin without a trailing '/'", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })), (text) => {
        const checked = checkBaseUrl(text);
        if (checked.ok) {
          expect(checked.baseUrl).toBe(new URL(checked.baseUrl).origin);
          expect(checked.baseUrl.endsWith("/")).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  test("for any URL with a user or password: refused, and the message never repeats them", () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9._~-]{4,12}$/).map((s) => `Zq9${s}`);
    fc.assert(
      fc.property(
        fc.constantFrom("http", "https", "HTTPS", "ftp"),
        secret,
        fc.option(secret, { nil: undefined }),
        fc.constantFrom("", "/", "/api"),
        (scheme, user, password, path) => {
          const text = `${scheme}://${user}${password === undefined ? "" : `:${password}`}@example.com${path}`;
          let message = "";
          try {
            readOjConfig({ "oj-base-url": text });
          } catch (error) {
            message = (error as Error).message;
          }
          expect(message).toContain("--oj-base-url");
          expect(message).not.toContain(`${user}${password === undefined ? "" : `:${password}`}@`);
          if (password !== undefined) expect(message).not.toContain(password);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("the default timeout is 30000 ms and may only be lowered", () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    expect(readOjConfig({ "oj-base-url": "https://example.com" })?.timeoutMs).toBe(30_000);
    expect(readOjConfig({ "oj-base-url": "https://example.com", "oj-timeout-ms": "250" })?.timeoutMs).toBe(250);
    expect(() => readOjConfig({ "oj-base-url": "https://example.com", "oj-timeout-ms": "30001" })).toThrow(
      "--oj-timeout-ms",
    );
    // S2: for any value, the timeout in force is at most 30 s; anything above is refused, never clamped silently.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (ms) => {
        const read = () =>
          readOjConfig({ "oj-base-url": "https://example.com", "oj-timeout-ms": String(ms) })?.timeoutMs;
        if (ms <= 30_000) expect(read()).toBe(ms);
        else expect(read).toThrow("--oj-timeout-ms");
      }),
      { numRuns: 200 },
    );
  });

  test("a token that cannot be a header value is refused without being echoed", () => {
    let message = "";
    try {
      readOjConfig({ "oj-base-url": "https://example.com", "oj-token": "abc def\nsecret-xyz" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("--oj-token");
    expect(message).not.toContain("secret-xyz");
  });
});

describe("output truncation (contract §6.4)", () => {
  const anyText = fc.string({
    unit: fc.constantFrom("a", "é", "中", "😀", "\n", "\ud800"),
    minLength: 0,
    maxLength: 60_000,
  });

  test("for any text: at most 102,400 bytes + the 17-byte suffix, valid UTF-8, suffix exactly when cut", () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 0, max: 3 }), (piece, padBytes) => {
        // Put multi-byte characters right at the boundary.
        const text = "x".repeat(MAX_OUTPUT_BYTES - padBytes) + piece;
        const out = truncateOutput(text);
        const bytes = utf8(out);
        expect(bytes.byteLength).toBeLessThanOrEqual(MAX_OUTPUT_BYTES + 17);
        expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes)).not.toThrow();
        if (utf8(text).byteLength > MAX_OUTPUT_BYTES) {
          expect(out.endsWith(TRUNCATION_SUFFIX)).toBe(true);
          const kept = out.slice(0, -TRUNCATION_SUFFIX.length);
          expect(text.toWellFormed().startsWith(kept)).toBe(true);
          expect(utf8(kept).byteLength).toBeGreaterThan(MAX_OUTPUT_BYTES - 4);
        } else {
          expect(out).toBe(text);
        }
      }),
      { numRuns: 60 },
    );
  });

  test("for any text: truncation is idempotent, truncate(truncate(s)) == truncate(s)", () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 0, max: 40 }), (piece, padBytes) => {
        const once = truncateOutput("x".repeat(MAX_OUTPUT_BYTES - padBytes) + piece);
        expect(truncateOutput(once)).toBe(once);
      }),
      { numRuns: 40 },
    );
    // The falsification of the reference spec, with a cut that lands before byte 102,400.
    const cut = truncateOutput(`${"x".repeat(MAX_OUTPUT_BYTES - 1)}中${"y".repeat(5000)}`);
    expect(utf8(cut).byteLength).toBe(MAX_OUTPUT_BYTES - 1 + 17);
    expect(truncateOutput(cut)).toBe(cut);
  });

  test('the suffix is exactly "\\n\\n... (truncated)" (17 bytes)', () => {
    expect(TRUNCATION_SUFFIX).toBe("\n\n... (truncated)");
    expect(utf8(TRUNCATION_SUFFIX).byteLength).toBe(17);
    const out = truncateOutput("中".repeat(40_000));
    expect(out.endsWith("... (truncated)")).toBe(true);
    expect(utf8(out).byteLength).toBe(102_399 + 17); // 34,133 whole 3-byte characters
  });
});

describe("the output budget's cut note (contract §6.4)", () => {
  const problemWith = (link: string | null) => ({
    source: "leetcode",
    id: "1",
    title: "T",
    slug: null,
    difficulty: null,
    tags: [],
    link,
    ac_rate: null,
    rating: null,
    content: "",
  });

  test("for any number of upstream links of any length: the cut text stays within the budget, each link shortened visibly", () => {
    const statement = Array.from({ length: 3_000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n");
    fc.assert(
      fc.property(
        fc.array(
          fc
            .tuple(fc.constantFrom("a", "中", "😀", "%2F"), fc.nat({ max: 3_000 }))
            .map(([unit, count]) => `https://leetcode.com/problems/x/?ref=${unit.repeat(count)}`),
          { minLength: 1, maxLength: 6 },
        ),
        fc.integer({ min: 1_000, max: 100_000 }),
        (links, budget) => {
          const rest = readRestOf(links.map(problemWith));
          const text = fitOutput(statement, budget, "oj_get_daily_challenge", rest);
          expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budget);
          const note = text.slice(text.lastIndexOf("\n[") + 1);
          expect(note).toContain(`read the whole statement at ${links[0].slice(0, 37)}`);
          if (links.slice(0, 2).some((link) => Buffer.byteLength(link) > 120))
            expect(note).toContain(" (cut with …: the whole link is on the Link line and in the link field).]");
        },
      ),
      { numRuns: 200 },
    );
  });

  test("a link that is not http(s) is not named: the note says to raise the budget instead", () => {
    const view = toProblemView({ id: "1", link: "javascript:alert(1)", content: "x" });
    expect(view.link).toBeNull();
    expect(readRestOf([view])).toStartWith("the rest of the statement is not available within this budget");
  });

  test("a short link is named whole; a 700-byte one is cut to 120 bytes with …", () => {
    expect(readRestOf([problemWith("https://leetcode.com/problems/two-sum/")])).toBe(
      "read the whole statement at https://leetcode.com/problems/two-sum/",
    );
    const long = `https://leetcode.com/problems/x/?ref=${"a".repeat(700)}`;
    expect(readRestOf([problemWith(long), problemWith(null)])).toBe(
      `read the whole statement at ${long.slice(0, 117)}… (cut with …: the whole link is on the Link line and in the link field)`,
    );
  });
});

describe("non-RFC fallback (contract §5)", () => {
  const response = (status: number, body: string, isJson: boolean): UpstreamResponse => ({
    method: "GET",
    path: "/x",
    host: "127.0.0.1:1",
    status,
    body: utf8(body),
    truncated: false,
    isJson,
    sanitize: createSanitizer(undefined),
  });

  test("for any body: at most 500 scalar values, never a split character", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "é", "中", "😀"), maxLength: 1200 }), (body) => {
        const message = formatApiError(response(500, body, false));
        expect(message.startsWith("[500] ")).toBe(true);
        const kept = message.slice(6);
        expect([...kept].length).toBeLessThanOrEqual(500);
        expect(body.startsWith(kept)).toBe(true);
        expect(kept.toWellFormed()).toBe(kept);
      }),
      { numRuns: 200 },
    );
  });

  test("499 ASCII + a 4-byte emoji keeps the emoji whole (500 scalars)", () => {
    expect(takeScalars(`${"a".repeat(499)}😀tail`, 500)).toBe(`${"a".repeat(499)}😀`);
  });

  test("RFC 7807 bodies use their own status, title and detail; non-JSON content types are never parsed", () => {
    const rfc = '{"status":404,"title":"Not Found","detail":"problem not found"}';
    expect(formatApiError(response(404, rfc, true))).toBe("[404] Not Found: problem not found");
    expect(formatApiError(response(418, '{"status":409,"title":"Conflict"}', true))).toBe("[409] Conflict: ");
    expect(formatApiError(response(404, rfc, false))).toBe(`[404] ${rfc}`);
    expect(formatApiError(response(502, '{"detail":"no title"}', true))).toBe('[502] {"detail":"no title"}');
  });

  test("RFC 7807 title and detail are each cut to 500 scalar values with …, never splitting one", () => {
    const title = `${"T".repeat(499)}😀${"t".repeat(200_000)}`;
    const detail = "中".repeat(300_000);
    const message = formatApiError(response(400, JSON.stringify({ status: 400, title, detail }), true));
    expect(message).toBe(`[400] ${"T".repeat(499)}😀…: ${"中".repeat(500)}…`);
    // Values within the bound are quoted whole, without a mark.
    const whole = JSON.stringify({ status: 400, title: "a".repeat(500), detail: "b".repeat(500) });
    expect(formatApiError(response(400, whole, true))).toBe(`[400] ${"a".repeat(500)}: ${"b".repeat(500)}`);
  });

  test("a 503 or 429 with Retry-After gives the wait; other statuses and no header add nothing", () => {
    const rfc = '{"status":503,"title":"Service Unavailable","detail":"reindexing"}';
    expect(formatApiError({ ...response(503, rfc, true), retryAfterSeconds: 3600 })).toBe(
      "[503] Service Unavailable: reindexing — the craboj server asked to retry after 3600 s (about 1 h) (Retry-After): do not call this tool again before then.",
    );
    expect(formatApiError({ ...response(429, "slow down", false), retryAfterSeconds: 90 })).toBe(
      "[429] slow down — the craboj server asked to retry after 90 s (about 2 min) (Retry-After): do not call this tool again before then.",
    );
    expect(formatApiError({ ...response(404, "gone", false), retryAfterSeconds: 90 })).toBe("[404] gone");
    expect(formatApiError(response(429, "slow down", false))).toBe("[429] slow down");
  });
});

describe("format_number", () => {
  test("contract §6.3 examples", () => {
    expect([0, 999, 1000, 12984, 100, 1_000_000].map((n) => formatNumber(n))).toEqual([
      "0",
      "999",
      "1,000",
      "12,984",
      "100",
      "1,000,000",
    ]);
  });

  test("for any u64: digits and commas only, groups of three, commas removed gives the number back", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => {
        const text = formatNumber(n);
        expect(text).toMatch(/^\d{1,3}(,\d{3})*$/);
        expect(BigInt(text.replaceAll(",", ""))).toBe(n);
      }),
    );
  });

  test("exhaustive for 0..=9999 and independent of the locale", () => {
    for (let n = 0; n <= 9999; n++) {
      const expected = n < 1000 ? String(n) : `${Math.floor(n / 1000)},${String(n % 1000).padStart(3, "0")}`;
      if (formatNumber(n) !== expected) throw new Error(`${n} → ${formatNumber(n)}`);
    }
  });
});

describe("{:.1} percentages, like Rust", () => {
  test("contract examples and ties to even", () => {
    expect(formatFixed(0.791 * 100, 1)).toBe("79.1");
    expect(formatFixed(1.0 * 100, 1)).toBe("100.0");
    expect(formatFixed(57.08, 1)).toBe("57.1");
    expect(formatFixed(0.25, 1)).toBe("0.2");
    expect(formatFixed(0.75, 1)).toBe("0.8");
    expect(formatFixed(57.25, 1)).toBe("57.2");
    expect(formatFixed(0.35, 1)).toBe("0.3"); // 0.35 is 0.34999… in binary
    expect(formatFixed(9.96, 1)).toBe("10.0");
  });

  test("for any non-tie value it matches toFixed", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (x) => {
        if ((x * 20) % 1 === 0 && (x * 10) % 1 !== 0) return; // exact ties differ on purpose
        expect(formatFixed(x, 1)).toBe(x.toFixed(1));
      }),
    );
  });

  test("thresholds go into the query string like Rust's Display", () => {
    expect([0, 0.5, 1, 1e-7, 0.25].map(formatDecimal)).toEqual(["0", "0.5", "1", "0.0000001", "0.25"]);
  });
});

describe("path encoding", () => {
  test("a/b → a%2Fb and c d → c%20d", () => {
    expect(`${encodeComponent("a/b")}/${encodeComponent("c d")}`).toBe("a%2Fb/c%20d");
    expect(encodeComponent("https://leetcode.com/problems/two-sum?x=1#y")).toBe(
      "https%3A%2F%2Fleetcode.com%2Fproblems%2Ftwo-sum%3Fx%3D1%23y",
    );
  });

  test("for any string: only unreserved characters and escapes, and decoding gives it back", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (s) => {
        const encoded = encodeComponent(s);
        expect(encoded).toMatch(/^[A-Za-z0-9\-_.~%]*$/);
        expect(decodeURIComponent(encoded)).toBe(s);
      }),
    );
  });

  test("a platform/id pair is sent as platform:id", () => {
    expect(normalizeQuery("leetcode/two-sum")).toBe("leetcode:two-sum");
    expect(normalizeQuery("https://leetcode.com/problems/two-sum")).toBe("https://leetcode.com/problems/two-sum");
    expect(normalizeQuery("cf1A")).toBe("cf1A");
  });
});

describe("the daily date (contract §4.1)", () => {
  const inZone = (timeZone: string, at: Date) =>
    new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);

  test("for any instant: com is the UTC date, cn the Asia/Shanghai (UTC+8) date", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1995-01-01T00:00:00Z"), max: new Date("2090-01-01T00:00:00Z"), noInvalidDate: true }),
        (at) => {
          expect(todayFor("com", at)).toBe(inZone("UTC", at));
          expect(todayFor("cn", at)).toBe(inZone("Asia/Shanghai", at));
        },
      ),
    );
  });

  test("between 16:00 and 24:00 UTC the cn date is already tomorrow", () => {
    const at = new Date("2026-01-01T16:30:00Z");
    expect(todayFor("com", at)).toBe("2026-01-01");
    expect(todayFor("cn", at)).toBe("2026-01-02");
  });

  test("calendar dates", () => {
    expect(isCalendarDate("2024-02-29")).toBe(true);
    expect(isCalendarDate("2023-02-29")).toBe(false);
    expect(isCalendarDate("2026-13-01")).toBe(false);
    expect(isCalendarDate("2026-1-01")).toBe(false);
  });
});

describe("html_to_markdown", () => {
  test("blank content → 'No description available.'", () => {
    for (const blank of ["", "   ", "\n\t"]) expect(htmlToMarkdown(blank)).toBe(NO_DESCRIPTION);
  });

  test("<b>bold</b> renders as **bold**; LeetCode markup converts; Markdown passes through", () => {
    expect(htmlToMarkdown("<b>bold</b>")).toBe("**bold**");
    expect(htmlToMarkdown("<p>a &lt;= b<sup>2</sup></p><ul><li>x</li><li>y</li></ul>")).toBe("a <= b^2\n\n- x\n- y");
    // A void element that closes an open <p> (<hr>): what follows is outside that paragraph.
    expect(htmlToMarkdown("<p>one<hr>two</p><p>three")).toBe("one\n\n---\n\ntwo\n\nthree");
    expect(htmlToMarkdown("<pre><strong>Input:</strong> s = 1\n<strong>Output:</strong> 2</pre>")).toBe(
      "```\nInput: s = 1\nOutput: 2\n```",
    );
    const markdown = "## 题目描述\n\n输入 $a<b$ 的两个整数。";
    expect(looksLikeHtml(markdown)).toBe(false);
    expect(htmlToMarkdown(markdown)).toBe(markdown);
  });

  test("for any input: never throws and returns text", () => {
    const htmlish = fc.array(
      fc.constantFrom(
        "<p>",
        "</p>",
        "<div",
        ">",
        "<",
        "&lt;",
        "&#x1F600;",
        "&#0;",
        "<pre>",
        "</pre>",
        "<ul><li>",
        "<table><tr><td>",
        "<a href='x'>",
        "<b>",
        "</i>",
        "text ",
        "\n",
        "<!--",
        "-->",
        "<script>",
        "😀",
        '"',
        "<br/>",
      ),
      { maxLength: 80 },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          htmlish.map((parts) => parts.join("")),
        ),
        (input) => {
          const out = htmlToMarkdown(input);
          expect(typeof out).toBe("string");
          expect(out.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("hostile nesting stays bounded", () => {
    // 1.9 s on a loaded 2-core machine; work that grew with the square of the depth would take
    // hours, far past the test's timeout, so no clock is read here (it allowed 10 s).
    expect(htmlToMarkdown(`${"<div>".repeat(100_000)}deep`)).toBe("deep");
    expect(htmlToMarkdown(`${"<span>".repeat(50_000)}x${"</q>".repeat(50_000)}`)).toBe("x");
  });

  test("the fallback never leaves < or >", () => {
    fc.assert(
      fc.property(fc.string(), (input) => {
        const out = escapeMarkup(input);
        expect(out.includes("<") || out.includes(">")).toBe(false);
      }),
    );
  });
});

describe("templates", () => {
  const upstream = {
    id: "1",
    source: "leetcode",
    slug: "two-sum",
    title: "Two Sum",
    title_cn: null,
    difficulty: "Easy",
    ac_rate: 57.08,
    rating: null,
    tags: ["Array"],
    link: "https://leetcode.com/problems/two-sum/",
    content: "<p>Hi</p>",
    content_cn: null,
    date: null,
    domain: null,
  };

  test("problem template, no trailing newline", () => {
    expect(renderProblem(toProblemView(upstream))).toBe(
      "# Two Sum\n\n- Source: leetcode | ID: 1 | Difficulty: Easy\n- Tags: Array\n- Link: https://leetcode.com/problems/two-sum/\n- AC Rate: 57.1%\n\n---\n\nHi",
    );
  });

  test("nullable fields fall back: title → title_cn → slug → id, N/A elsewhere, source leetcode", () => {
    const view = toProblemView({
      ...upstream,
      source: null,
      title: null,
      difficulty: null,
      ac_rate: null,
      tags: null,
      link: null,
      content: null,
    });
    expect(view.title).toBe("two-sum");
    expect(renderProblem(view)).toBe(
      "# two-sum\n\n- Source: leetcode | ID: 1 | Difficulty: N/A\n- Tags: N/A\n- Link: N/A\n- AC Rate: N/A\n\n---\n\nNo description available.",
    );
    expect(toProblemView({ ...upstream, title: null, title_cn: "两数之和" }).title).toBe("两数之和");
    expect(toProblemView({ ...upstream, title: null, slug: null }).title).toBe("1");
  });

  test("for any problem the upstream may send: '# title' on line 0, Source/ID/Difficulty on line 2, '---' before the content", () => {
    const text = fc.option(fc.string({ unit: fc.constantFrom("a", "中", " ", "\n", "\t", "|", "😀"), maxLength: 12 }), {
      nil: null,
    });
    const problem = fc.record({
      id: fc.string({ maxLength: 6 }),
      source: text,
      slug: text,
      title: text,
      title_cn: text,
      difficulty: text,
      ac_rate: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
      rating: fc.constant(null),
      tags: fc.option(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), { nil: null }),
      link: text,
      content: text,
      content_cn: text,
      date: fc.constant(null),
      domain: fc.constant(null),
    });
    fc.assert(
      fc.property(problem, (p) => {
        const view = toProblemView(p);
        const lines = renderProblem(view).split("\n");
        expect(lines[0]).toMatch(/^# \S/);
        expect(lines[1]).toBe("");
        expect(lines[2]).toMatch(/^- Source: .* \| ID: .* \| Difficulty: /);
        expect(lines[3]).toMatch(/^- Tags: /);
        if (!p.tags || p.tags.length === 0) expect(lines[3]).toBe("- Tags: N/A");
        expect(lines[5]).toMatch(p.ac_rate === null ? /^- AC Rate: N\/A$/ : /^- AC Rate: \d+\.\d%$/);
        expect(lines.slice(6, 9)).toEqual(["", "---", ""]);
      }),
      { numRuns: 300 },
    );
  });

  test("a title with line breaks stays a one-line heading; an all-blank problem still has a title", () => {
    expect(renderProblem(toProblemView({ ...upstream, title: "\n  Two\nSum  " })).split("\n")[0]).toBe("# Two Sum");
    expect(toProblemView({ ...upstream, id: " ", title: null, title_cn: " ", slug: "" }).title).toBe(
      "Untitled problem",
    );
  });

  test("for any similar results: one row per result, numbered from 1, each with exactly 7 cells", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "|", "\n", " ", "中"), maxLength: 8 });
    const row = fc.record({
      source: text,
      id: text,
      title: fc.option(text, { nil: null }),
      difficulty: fc.option(text, { nil: null }),
      link: fc.option(text, { nil: null }),
      similarity: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(text, fc.array(row, { maxLength: 6 }), (query, rows) => {
        const out = renderSimilar({ query, results: rows.map((r, i) => ({ ...r, rank: i + 1 })) });
        const lines = out.split("\n");
        expect(lines.slice(0, 3)).toEqual(["# Similar Problems", "", lines[2]]);
        expect(lines[2]).toStartWith("Query: ");
        const body = lines.slice(6, -1);
        expect(body).toHaveLength(rows.length);
        body.forEach((line, i) => {
          expect(line).toStartWith(`| ${i + 1} | `);
          expect(line.split(/(?<!\\)\|/).length - 2).toBe(7);
          expect(line).toMatch(/ \d+\.\d% \|/);
        });
        expect(out.endsWith("\n")).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  test("for any status: one row per platform, exactly 4 columns, counts grouped by commas", () => {
    const count = fc.integer({ min: 0, max: 2 ** 32 - 1 });
    const platform = fc.record({
      source: fc.string({ unit: fc.constantFrom("a", "|", "\n", "z"), minLength: 1, maxLength: 6 }),
      total: count,
      missing_content: count,
      not_embedded: count,
    });
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.array(platform, { maxLength: 6 }), (version, platforms) => {
        const lines = renderStatus({ version, platforms }).split("\n");
        expect(lines[0]).toBe(`# OJ Platform Status (v${version})`);
        const rows = lines.slice(4, -1);
        expect(rows).toHaveLength(platforms.length);
        rows.forEach((row, i) => {
          const cells = row
            .split(/(?<!\\)\|/)
            .slice(1, -1)
            .map((c) => c.trim());
          expect(cells).toHaveLength(4);
          expect(cells.slice(1)).toEqual(
            [platforms[i].total, platforms[i].missing_content, platforms[i].not_embedded].map((n) => formatNumber(n)),
          );
        });
      }),
      { numRuns: 200 },
    );
  });

  test("similar table and status table", () => {
    const similar = renderSimilar({
      query: "q",
      results: [
        { rank: 1, source: "leetcode", id: "15", title: "3Sum", difficulty: "Medium", link: null, similarity: 0.791 },
        { rank: 2, source: "luogu", id: "P1", title: null, difficulty: null, link: "l", similarity: 1.0 },
      ],
    });
    expect(similar).toBe(
      "# Similar Problems\n\nQuery: q\n\n| # | Source | ID | Title | Difficulty | Similarity | Link |\n|---|--------|----|-------|------------|------------|------|\n" +
        "| 1 | leetcode | 15 | 3Sum | Medium | 79.1% | N/A |\n| 2 | luogu | P1 | N/A | N/A | 100.0% | l |\n",
    );
    const status = renderStatus({
      version: "1.2.3",
      platforms: [{ source: "codeforces", total: 12984, missing_content: 100, not_embedded: 1000 }],
    });
    const lines = status.trimEnd().split("\n");
    expect(lines[0]).toBe("# OJ Platform Status (v1.2.3)");
    expect(lines.at(-1)).toBe("| codeforces | 12,984 | 100 | 1,000 |");
    expect(lines[2].split("|").length - 2).toBe(4);
  });
});

describe("token redaction in logs", () => {
  test("configure registers the token raw and JSON-escaped, so no log field can print it", () => {
    const lines: string[] = [];
    const log = createLogger("trace", (line) => lines.push(line));
    const token = 'tok"\\secret-4f1c';
    oj.configure({ "oj-base-url": "https://example.com", "oj-token": token }, { log, mode: "stdio", cwd: "/" });
    log.info(`message ${token}`, { field: token, nested: { token } });
    const printed = lines.join("");
    expect(printed).toContain("[redacted]");
    expect(printed).not.toContain("secret-4f1c");
  });

  test("the percent-encoded form is registered with its escapes in lower case too (%2f as an upstream may write it)", () => {
    const lines: string[] = [];
    const log = createLogger("trace", (line) => lines.push(line));
    const token = "k3/Y+q=Zx9/Pw+Lm";
    oj.configure({ "oj-base-url": "https://example.com", "oj-token": token }, { log, mode: "stdio", cwd: "/" });
    const lower = encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    expect(lower).toBe("k3%2fY%2bq%3dZx9%2fPw%2bLm");
    log.info(`upstream said Bearer%20${lower}`, { field: lower });
    expect(lines.join("")).not.toContain("Zx9%2fPw");
    expect(lines.join("")).toContain("[redacted]");
  });
});
