/**
 * The token never leaves the process, not even a fragment (docs/contracts/oj.md §7): an upstream
 * that echoes it is answered with `[redacted]` wherever the text is later cut. Every cut offset is
 * swept across the token, through the real process against the fake craboj, at trace level, and
 * every byte of stdout, stderr and the client notifications is searched for any run of 8 of the
 * token's characters. Upstream control sequences are stripped on the same path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type FakeCraboj, startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { MAX_BODY_BYTES, OjHttpClient, bodyText } from "../../src/toolsets/oj/http.ts";
import { REDACTED, createSanitizer, fragmentRedactor, tokenForms } from "../../src/toolsets/oj/sanitize.ts";
import { silentLogger } from "../../src/core/log.ts";
import { runCli } from "../support/mcp.ts";
import { type RawServer, startRawServer } from "../support/raw-stdio.ts";

/** The contract's bound: no run of this many token characters may be shown (stated here, not imported). */
const MIN_FRAGMENT = 8;

// Printable ASCII with `"`, `\` and `/`, so the JSON-escaped form differs from the raw one.
const TOKEN = `Zq"8x\\Kp/${crypto.randomUUID().replaceAll("-", "").slice(0, 22)}`;

/** Against the fake at `fakeUrl`, with the token, logging at trace: where a leak would show. */
const tracedWithToken = (fakeUrl: string) => ["--oj-base-url", fakeUrl, "--oj-token", TOKEN, "--log-level", "trace"];

/**
 * Every run of MIN_FRAGMENT characters of the token, as is and in each encoding it could be
 * printed in (JSON-escaped, percent-encoded): what must never appear anywhere.
 */
function fragmentsOf(token: string): string[] {
  const encodings = [
    (s: string) => s,
    (s: string) => JSON.stringify(s).slice(1, -1),
    encodeURIComponent,
    // An upstream may write the escapes' hex digits in lower case (`%2f`): the same token.
    (s: string) => lowerHex(encodeURIComponent(s)),
  ];
  const out = new Set<string>();
  for (let i = 0; i + MIN_FRAGMENT <= token.length; i++)
    for (const encode of encodings) out.add(encode(token.slice(i, i + MIN_FRAGMENT)));
  return [...out];
}
const FRAGMENTS = fragmentsOf(TOKEN);

function lowerHex(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}

function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([key, item]) => [key, ...stringsIn(item)]);
  return [];
}

function leaks(text: string): string[] {
  return FRAGMENTS.filter((fragment) => text.includes(fragment));
}

// C0 controls other than tab and newline, DEL, and C1 (as UTF-8 characters U+0080–U+009F).
/** Control bytes, and the invisible format characters (bidi, zero-width) and line separators. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/u;

describe("the sanitizer (pure)", () => {
  const printableToken = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 8,
    maxLength: 70,
  });
  const filler = fc.string({ unit: fc.constantFrom("a", " ", "é", "中", "\n", "<", "}"), maxLength: 40 });

  test("for any token, text around it and cut offset: no run of 8 token characters survives, raw or JSON-escaped", () => {
    fc.assert(
      fc.property(printableToken, filler, filler, fc.nat(), fc.boolean(), (token, before, after, cutSeed, escaped) => {
        const sanitize = createSanitizer(token);
        const echoed = escaped ? JSON.stringify(token).slice(1, -1) : token;
        const text = `${before}${echoed}${after}`;
        const cut = cutSeed % (text.length + 1);
        // Cut first (the bug: a prefix of the token survived) and cut after sanitizing (the fix's order).
        for (const shown of [sanitize.text(text.slice(0, cut)), sanitize.text(text).slice(0, cut)]) {
          // The quotes that delimit a serialized string are not content: a 7-character prefix followed by
          // the closing quote is not a leak, even when the token itself holds a quote there.
          const serialized = JSON.stringify(shown).slice(1, -1);
          for (const fragment of fragmentsOf(token)) {
            expect(shown.includes(fragment)).toBe(false);
            expect(serialized.includes(fragment)).toBe(false);
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  test("text without the token is left exactly as it was; a token shorter than 8 is redacted whole", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", " ", "é", "\n", "\t"), maxLength: 200 }), (text) => {
        expect(createSanitizer("tok-3f9a1c7d").text(text)).toBe(text);
      }),
    );
    expect(fragmentRedactor("s3cr3t")("a s3cr3t b s3cr3 c")).toBe(`a ${REDACTED} b s3cr3 c`);
  });

  test("a token split across fields: each side of 8 or more characters is redacted, in keys too", () => {
    const sanitize = createSanitizer(TOKEN);
    for (let at = 0; at <= TOKEN.length; at++) {
      const value = sanitize.value({
        title: `Echo ${TOKEN.slice(0, at)}`,
        content: `${TOKEN.slice(at)} end`,
        [TOKEN]: [TOKEN.slice(at)],
      });
      expect(leaks(JSON.stringify(value))).toEqual([]);
    }
  });

  test("a percent-encoded echo is redacted whatever the case of its escapes' hex digits (%2f, %2F, mixed)", () => {
    // base64 with + / =: every escape holds a letter (%2B, %2F, %3D), and the raw form differs.
    const token = "k3/Y+q=Zx9/Pw+Lm=Rt7/Ua+Vb=";
    const sanitize = createSanitizer(token);
    const upper = encodeURIComponent(`Bearer ${token}`);
    let flip = false;
    const mixed = upper.replace(/%[0-9A-F]{2}/g, (hex) => ((flip = !flip) ? hex.toLowerCase() : hex));
    for (const echoed of [upper, lowerHex(upper), mixed]) {
      expect(echoed).not.toBe(token);
      for (let cut = 0; cut <= echoed.length; cut += 3) {
        const shown = sanitize.text(`detail: ${echoed.slice(0, cut)} end`);
        const fragments = fragmentsOf(token);
        expect(fragments.filter((fragment) => shown.toLowerCase().includes(fragment.toLowerCase()))).toEqual([]);
      }
      expect(sanitize.text(`detail: ${echoed} end`)).toBe(`detail: Bearer%20${REDACTED} end`);
    }
    // Text that only looks like an escape is left alone.
    expect(sanitize.text("100%ab off, %zz")).toBe("100%ab off, %zz");
  });

  test("control sequences are stripped before redacting, so ESC inside the token cannot shield it", () => {
    const sanitize = createSanitizer(TOKEN);
    const shown = sanitize.text(`a ${TOKEN.slice(0, 10)}\u001b[31m${TOKEN.slice(10)} \u001b]0;title\u0007 \u009b2J b`);
    expect(shown).toBe(`a ${REDACTED}   b`);
    expect(createSanitizer(undefined).text("\u001b[2Jred\u0007\u0085")).toBe("red");
  });

  test("bidi and zero-width characters are stripped before redacting too; line separators become newlines", () => {
    const sanitize = createSanitizer(TOKEN);
    expect(sanitize.text(`a ${TOKEN.slice(0, 10)}\u200b\u202e${TOKEN.slice(10)} b`)).toBe(`a ${REDACTED} b`);
    expect(createSanitizer(undefined).text("Big Red \u202egnp.exe\u202c\u2066!\u2069\ufeff")).toBe("Big Red gnp.exe!");
    expect(createSanitizer(undefined).text("one\u2028two\u2029three")).toBe("one\ntwo\nthree");
  });
});

/**
 * The redaction rule as first written, one search of the text per window: the reference the
 * one-pass redactor must agree with on every text (every maximal run covered by MIN_FRAGMENT
 * characters of a form of the token, or by a whole form shorter than that, becomes one REDACTED).
 */
function searchEveryWindow(token: string): (text: string) => string {
  const windows = new Set<string>();
  const upperHex = (text: string) => text.replace(/%[0-9a-fA-F]{2}/g, (hex) => hex.toUpperCase());
  // Percent-escapes compare without case: the forms and the text are also read with them upper-cased.
  for (const form of new Set([...tokenForms(token), ...tokenForms(token).map(upperHex)])) {
    if (form.length <= MIN_FRAGMENT) windows.add(form);
    else for (let i = 0; i + MIN_FRAGMENT <= form.length; i++) windows.add(form.slice(i, i + MIN_FRAGMENT));
  }
  return (text) => {
    const covered = new Uint8Array(text.length);
    for (const read of new Set([text, upperHex(text)]))
      for (const window of windows)
        for (let at = read.indexOf(window); at !== -1; at = read.indexOf(window, at + 1))
          covered.fill(1, at, at + window.length);
    let out = "";
    for (let i = 0; i < text.length; ) {
      if (covered[i] === 0) out += text[i++];
      else {
        out += REDACTED;
        while (covered[i] === 1) i++;
      }
    }
    return out;
  };
}

/** Runs `work` counting the calls it makes to the string, RegExp and collection built-ins. */
function builtinCallsOf(work: () => void): number {
  const counted: [object, string[]][] = [
    [
      String.prototype,
      ["indexOf", "lastIndexOf", "includes", "slice", "substring", "substr", "charCodeAt", "codePointAt", "at"],
    ],
    [String.prototype, ["startsWith", "endsWith", "match", "matchAll", "search", "replace", "replaceAll", "split"]],
    [RegExp.prototype, ["exec", "test"]],
    [Set.prototype, ["has"]],
    [Map.prototype, ["get", "has"]],
  ];
  let calls = 0;
  const originals: [Record<string, unknown>, string, unknown][] = [];
  for (const [prototype, names] of counted) {
    const target = prototype as Record<string, (...args: unknown[]) => unknown>;
    for (const name of names) {
      const original = target[name];
      originals.push([target, name, original]);
      target[name] = function (this: unknown, ...args: unknown[]) {
        calls++;
        return original.apply(this, args);
      };
    }
  }
  try {
    work();
  } finally {
    for (const [target, name, original] of originals) target[name] = original;
  }
  return calls;
}

describe("the redactor reads a text once, whatever the token's length", () => {
  test("for any token and text made of its forms' pieces: the same text as searching for every window", () => {
    const token = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      minLength: 1,
      maxLength: 30,
    });
    const piece = fc.record({ form: fc.nat(), from: fc.nat(), length: fc.integer({ min: 1, max: 20 }) });
    const filler = fc.string({
      unit: fc.constantFrom("a", "%", "\\", "/", '"', "2F", "2f", " ", "é", "😀"),
      maxLength: 6,
    });
    fc.assert(
      fc.property(token, fc.array(fc.oneof(piece, filler), { maxLength: 12 }), (token, parts) => {
        const forms = tokenForms(token);
        const text = parts
          .map((part) => {
            if (typeof part === "string") return part;
            const form =
              part.form % 2 === 0 ? forms[part.form % forms.length] : lowerHex(forms[part.form % forms.length]);
            const from = part.from % form.length;
            return form.slice(from, from + part.length);
          })
          .join("");
        expect(fragmentRedactor(token)(text)).toBe(searchEveryWindow(token)(text));
      }),
      { numRuns: 3000 },
    );
  });

  test("redacting many short strings and a long text takes no more work for a 4,000-character token than for a 32-character one", () => {
    // base64 with + and /: its forms with \/ and percent-encoded differ from it, three forms in all.
    const long = Buffer.from(crypto.getRandomValues(new Uint8Array(3000)))
      .toString("base64")
      .slice(0, 4000);
    const short = crypto.randomUUID().replaceAll("-", "");
    expect(tokenForms(long).length).toBe(3);
    // The shape of the red-team's answer: many short strings, each redacted on its own; and a text.
    const answer = { results: Array.from({ length: 2_000 }, (_, i) => `s${String(i).padStart(8, "0")}`) };
    const text = JSON.stringify(answer).repeat(2);
    const work = (token: string) => {
      const sanitize = createSanitizer(token);
      return builtinCallsOf(() => {
        sanitize.value(answer);
        sanitize.text(text);
      });
    };
    const [forShort, forLong] = [work(short), work(long)];
    // One search per window (about three per token character here) made 164 times as many calls.
    expect(forLong).toBeLessThan(forShort * 1.2);
    // Still redacting, both tokens, after all that.
    for (const token of [short, long]) {
      expect(createSanitizer(token).text(`a ${encodeURIComponent(token).slice(5, 40)} b`)).toBe(`a ${REDACTED} b`);
    }
  });
});

describe("the HTTP client: the 1 MiB read cap never leaves a prefix of the token", () => {
  let fake: FakeCraboj;
  beforeAll(() => {
    fake = startFakeCraboj({ tokens: [TOKEN] });
  });
  afterAll(() => fake.stop());

  test("for every number of token characters the cap lets through, the body text has no fragment", async () => {
    const http = new OjHttpClient({ baseUrl: fake.url, token: TOKEN, timeoutMs: 30_000 }, silentLogger);
    for (let n = 0; n <= TOKEN.length; n += 3) {
      const response = await http.request(`/api/v1/problems/leetcode/echo-at-body-${n}`);
      expect(response.truncated).toBe(true);
      expect(response.body.byteLength).toBe(MAX_BODY_BYTES);
      const text = bodyText(response);
      expect(leaks(text.slice(-200))).toEqual([]);
      if (n >= MIN_FRAGMENT) expect(text.endsWith(REDACTED)).toBe(true);
    }
  });
});

describe("through the real process (stdio at trace level, notifications on)", () => {
  let fake: FakeCraboj;
  let standard: RawServer; // default output budget (100,000)
  let wide: RawServer; // budget above the 102,400-byte cap
  let nextId = 100;

  beforeAll(async () => {
    fake = startFakeCraboj({ tokens: [TOKEN] });
    const args = (extra: string[]) => ["--toolsets", "oj", ...tracedWithToken(fake.url), ...extra];
    standard = startRawServer(args([]));
    wide = startRawServer(args(["--max-output-bytes", "300000"]));
    for (const server of [standard, wide]) {
      await server.initialize();
      server.send({ jsonrpc: "2.0", id: "level", method: "logging/setLevel", params: { level: "debug" } });
      await server.response("level");
    }
  });
  afterAll(async () => {
    for (const server of [standard, wide]) {
      server?.closeStdin();
      await server?.exited;
    }
    await fake?.stop();
  });

  /** Calls get_problem on `id`s all at once and returns the texts of the results (or error messages). */
  async function texts(server: RawServer, ids: string[]): Promise<string[]> {
    const sent = ids.map((id) => {
      const requestId = nextId++;
      server.send({
        jsonrpc: "2.0",
        id: requestId,
        method: "tools/call",
        params: { name: "get_problem", arguments: { source: "leetcode", id } },
      });
      return requestId;
    });
    const replies = await Promise.all(sent.map((id) => server.response(id)));
    return replies.map((reply) => {
      const result = reply.result as { content?: { text: string }[] } | undefined;
      return result?.content?.[0]?.text ?? (reply.error as { message: string }).message;
    });
  }

  /** Where the `x` padding stops in the text, i.e. where the cut falls when the token is far away. */
  async function cutOffset(server: RawServer, kind: string): Promise<number> {
    const [text] = await texts(server, [`echo-at-${kind}-300000`]);
    return (/x+/.exec(text)?.[0] ?? "").length;
  }

  const sweep = (around: number) =>
    Array.from({ length: TOKEN.length + 4 }, (_, i) => around - TOKEN.length - 2 + i).filter((n) => n >= 0);

  test("the 500-character error excerpt, raw and JSON-escaped, and an RFC 7807 detail's: swept across the token", async () => {
    expect(await cutOffset(standard, "text500")).toBe(500);
    // An RFC 7807 detail is cut at 500 scalar values too (with …), not by the output budget.
    expect(await cutOffset(standard, "rfc")).toBe(500);
    for (const kind of ["text500", "json500", "rfc"]) {
      const shown = await texts(
        standard,
        sweep(500).map((n) => `echo-at-${kind}-${n}`),
      );
      for (const text of shown) {
        expect(text).toStartWith(kind === "rfc" ? "[401] Unauthorized: x" : "[500] x");
        expect(leaks(text)).toEqual([]);
      }
      expect(shown.some((text) => text.includes(REDACTED))).toBe(true);
    }
  });

  test("a statement cut by the output budget and by the 102,400-byte cap", async () => {
    const cases: [RawServer, string][] = [
      [standard, "statement"],
      [wide, "statement"],
    ];
    for (const [server, kind] of cases) {
      const cut = await cutOffset(server, kind);
      expect(cut).toBeGreaterThan(90_000);
      const shown = await texts(
        server,
        sweep(cut).map((n) => `echo-at-${kind}-${n}`),
      );
      for (const text of shown) expect(leaks(text)).toEqual([]);
      // The sweep did put the token where the text is cut: some answers show the marker, cut or whole.
      expect(shown.some((text) => text.includes("[redact"))).toBe(true);
    }
  });

  test("a token split between the title and the statement, at every split point", async () => {
    const shown = await texts(
      standard,
      Array.from({ length: TOKEN.length + 1 }, (_, n) => `echo-at-split-${n}`),
    );
    for (const text of shown) {
      expect(text).toStartWith("# Echo");
      expect(leaks(text)).toEqual([]);
    }
  });

  test("nothing on stdout (results, errors, notifications) or stderr (trace log) ever held a fragment; no control bytes either", async () => {
    const [statement] = await texts(standard, [
      "echo-at-escstatement-9",
      "echo-at-esc-12",
      "echo-at-esc-3",
      "echo-auth-json",
      "echo-auth-shape",
    ]);
    expect(statement).toStartWith("# Echo Title\n");
    expect(statement).toEndWith(`ab ${REDACTED}`);
    const stdout = [...standard.lines(), ...wide.lines()].join("\n");
    const stderr = standard.stderr() + wide.stderr();
    expect(stderr).toContain("TRACE");
    // Upstream errors were reported to the client as notifications/message.
    expect(stdout).toContain('"method":"notifications/message"');
    expect(stdout).toContain("the craboj server answered [500] x");
    expect(leaks(stdout)).toEqual([]);
    expect(leaks(stderr)).toEqual([]);
    // JSON escapes control characters: look inside every decoded string as well as at the raw bytes.
    expect(stdout).not.toMatch(CONTROL);
    for (const line of [...standard.lines(), ...wide.lines()])
      expect(stringsIn(JSON.parse(line)).filter((text) => CONTROL.test(text))).toEqual([]);
    expect(stderr).not.toMatch(CONTROL);
  });

  test("mcpkit call with a 4,000-character token: its raw, percent-encoded (either case) and ANSI-split echoes are redacted", async () => {
    // base64 with + and /, so that the percent-encoded form differs from the raw one.
    const long = Buffer.from(crypto.getRandomValues(new Uint8Array(3000)))
      .toString("base64")
      .slice(0, 4000);
    const echoes = (request: Request) => {
      const auth = request.headers.get("authorization") ?? "";
      return `${auth} / ${encodeURIComponent(auth)} / ${lowerHex(encodeURIComponent(auth))} / ${auth.split("").join("\u001b[0m")}`;
    };
    const longFake = startFakeCraboj({ tokens: [long] });
    longFake.override("GET", "/api/v1/problems/leetcode/echo-401", (request) =>
      Response.json(
        { title: "Unauthorized", status: 401, detail: `bad header: ${echoes(request)}` },
        { status: 401, headers: { "content-type": "application/problem+json" } },
      ),
    );
    longFake.override("GET", "/api/v1/problems/leetcode/echo-ok", (request) =>
      Response.json({ id: "echo-ok", source: "leetcode", title: "Echo", content: `<p>${echoes(request)}</p>` }),
    );
    try {
      const results = await Promise.all(
        ["echo-401", "echo-ok"].map((id) =>
          runCli([
            "call",
            "get_problem",
            JSON.stringify({ source: "leetcode", id }),
            "--oj-base-url",
            longFake.url,
            "--oj-token",
            long,
            "--log-level",
            "trace",
          ]),
        ),
      );
      expect(results.map((r) => r.code)).toEqual([1, 0]);
      const fragments = fragmentsOf(long);
      for (const { stdout, stderr } of results) {
        expect(stdout.split(REDACTED).length - 1).toBeGreaterThanOrEqual(4);
        expect(fragments.filter((fragment) => (stdout + stderr).includes(fragment))).toEqual([]);
      }
    } finally {
      await longFake.stop();
    }
  });

  test("mcpkit call: stdout and stderr hold no fragment and no ESC/BEL/C1 byte", async () => {
    const calls = ["echo-at-esc-5", "echo-at-text500-490", "echo-at-split-9"].map((id) =>
      runCli(["call", "get_problem", JSON.stringify({ source: "leetcode", id }), ...tracedWithToken(fake.url)]),
    );
    const textOnly = runCli([
      "call",
      "get_problem",
      '{"source":"leetcode","id":"echo-at-esc-7"}',
      "--text",
      "--oj-base-url",
      fake.url,
      "--oj-token",
      TOKEN,
    ]);
    const results = await Promise.all([...calls, textOnly]);
    expect(results.map((r) => r.code)).toEqual([1, 1, 0, 1]);
    for (const { stdout, stderr } of results) {
      expect(leaks(stdout + stderr)).toEqual([]);
      expect(stdout + stderr).not.toMatch(CONTROL);
    }
    expect(results[3].stdout).toBe(`[500] rejected ${REDACTED} done\n`);
  });
});
