/** The pure parts: policy rules, configuration checks, redirect URI matching, sealing. */
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../src/core/options.ts";
import type { AuthServerConfig } from "../../src/mcp/auth-server/index.ts";
import { resolveConfig } from "../../src/mcp/auth-server/config.ts";
import { createKeyring, parseStateKey } from "../../src/mcp/auth-server/crypto.ts";
import { type Identity, grantScopes, parsePolicyRule, policyScopes } from "../../src/mcp/auth-server/policy.ts";
import { readAuthServerConfig } from "../../src/mcp/auth-server/options.ts";
import {
  ADDRESS_WINDOWS_MAX,
  NETWORK_WINDOWS_MAX,
  addressBucket,
  type RateLimiter,
  createRateLimiter,
  networkBucket,
} from "../../src/mcp/auth-server/rate-limit.ts";
import { readCookie, setCookie } from "../../src/mcp/auth-server/http.ts";
import { throttledLog } from "../../src/mcp/auth-server/errors.ts";
import { createLogger } from "../../src/core/log.ts";
import { redirectUriMatches } from "../../src/mcp/auth-server/redirect-uri.ts";
import { createUpstream } from "../../src/mcp/auth-server/upstream/index.ts";

const alice: Identity = {
  subject: "oidc:1",
  upstreamSubject: "1",
  emails: ["alice@example.com"],
  displayName: "alice",
};
const carol: Identity = {
  subject: "oidc:2",
  upstreamSubject: "2",
  emails: ["carol@example.com"],
  displayName: "carol",
};
const octo: Identity = {
  subject: "github:7",
  upstreamSubject: "7",
  emails: [],
  displayName: "octo",
  github: { login: "octo", orgs: ["acme"] },
};
const rules = ["alice@example.com=*", "*@example.com=boj:read,fs:read", "github-org:acme=*:read"].map(parsePolicyRule);
const all = ["boj:read", "oj:read", "fs:read", "fs:write"];

describe("access policy", () => {
  test("exact email gets *, domain gets its list, org gets *:read, others nothing (default deny)", () => {
    expect(grantScopes(rules, alice, all)).toEqual(all);
    expect(grantScopes(rules, carol, all)).toEqual(["boj:read", "fs:read"]);
    expect(grantScopes(rules, octo, all)).toEqual(["boj:read", "oj:read", "fs:read"]);
    expect(policyScopes(rules, { ...alice, emails: ["eve@evil.example"] })).toEqual([]);
    expect(policyScopes([], alice)).toEqual([]);
  });
  test("a look-alike domain does not match *@example.com", () => {
    expect(policyScopes(rules, { ...carol, emails: ["carol@notexample.com"] })).toEqual([]);
    expect(policyScopes(rules, { ...carol, emails: ["carol@example.com.evil.example"] })).toEqual([]);
  });
  test.each(["alice@example.com", "=*", "nobody=*", "alice@example.com=", "*@=boj:read", "alice@example.com=a b"])(
    "refuses the rule %p",
    (rule) => {
      expect(() => parsePolicyRule(rule)).toThrow();
    },
  );
});

const base: AuthServerConfig = {
  publicUrl: "https://mcp.example.com",
  upstream: { kind: "oidc", issuer: "https://login.example.com", clientId: "c" },
  allow: ["*=*"],
  state: "sqlite:/tmp/x.db",
  scopesSupported: ["boj:read"],
};

describe("configuration", () => {
  test("derives issuer, resource and callback from the public URL (path prefix kept)", () => {
    const config = resolveConfig({ ...base, publicUrl: "https://host.example/team/" });
    expect(config.issuer).toBe("https://host.example/team");
    expect(config.resource).toBe("https://host.example/team/mcp");
    expect(config.callbackUrl).toBe("https://host.example/team/oauth/callback");
  });
  test.each([
    [{ publicUrl: "http://mcp.example.com" }, /must be https/],
    [{ state: "postgres://db/mcpkit" }, /needs --state-key/],
    [{ state: "mysql://db" }, /sqlite:PATH or a postgres/],
    [{ allow: ["bad rule"] }, /--allow rule #1/],
    [{ upstream: { kind: "github", clientId: "x", clientSecret: "" } }, /github-client-secret/],
    [
      { upstream: { kind: "oidc", issuer: "http://login.example.com", clientId: "c" } },
      /--upstream-issuer must be https/,
    ],
    [{ codeTtlSeconds: 600 }, /at most 300/],
  ] as [Partial<AuthServerConfig>, RegExp][])("refuses %p", (override, message) => {
    expect(() => resolveConfig({ ...base, ...override })).toThrow(ConfigError);
    expect(() => resolveConfig({ ...base, ...override })).toThrow(message);
  });
  test("plain http is accepted on loopback, with non-Secure cookies", () => {
    expect(resolveConfig({ ...base, publicUrl: "http://127.0.0.1:8080" }).secure).toBe(false);
  });
});

describe("redirect URI matching", () => {
  test("exact, or a loopback URI with another port; nothing else", () => {
    expect(redirectUriMatches(["https://app.example/cb"], "https://app.example/cb")).toBe(true);
    expect(redirectUriMatches(["https://app.example/cb"], "https://app.example:444/cb")).toBe(false);
    expect(redirectUriMatches(["http://127.0.0.1/cb"], "http://127.0.0.1:61000/cb")).toBe(true);
    expect(redirectUriMatches(["http://[::1]:5/cb"], "http://[::1]:6/cb")).toBe(true);
    expect(redirectUriMatches(["http://127.0.0.1/cb"], "http://127.0.0.2:61000/cb")).toBe(false);
    expect(redirectUriMatches(["http://127.0.0.1/cb"], "http://127.0.0.1:61000/cb2")).toBe(false);
    expect(
      redirectUriMatches(
        ["cursor://anysphere.cursor-mcp/oauth/callback"],
        "cursor://anysphere.cursor-mcp/oauth/callback",
      ),
    ).toBe(true);
  });
});

describe("sealing", () => {
  test("a sealed value opens only with its key and context, and tampering is detected", () => {
    const keyring = createKeyring(parseStateKey("11".repeat(32)));
    const sealed = keyring.seal("upstream-refresh-token", "upstream-tokens:alice");
    expect(sealed).not.toContain("upstream-refresh-token");
    expect(keyring.open(sealed, "upstream-tokens:alice")).toBe("upstream-refresh-token");
    expect(() => keyring.open(sealed, "upstream-tokens:mallory")).toThrow();
    expect(() => createKeyring(parseStateKey("22".repeat(32))).open(sealed, "upstream-tokens:alice")).toThrow();
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}A`;
    expect(() => keyring.open(tampered, "upstream-tokens:alice")).toThrow();
    expect(() => parseStateKey("short")).toThrow(/32 bytes/);
  });
});

describe("flags", () => {
  test("OIDC flags become an oidc upstream; GitHub flags a github one; neither or both is an error naming the flags", () => {
    const context = { publicUrl: "https://mcp.example.com", scopesSupported: ["boj:read"] };
    const oidc = readAuthServerConfig(
      {
        "upstream-issuer": "https://id.example.com/realms/t",
        "upstream-client-id": "mcpkit",
        allow: ["*@example.com=*"],
      },
      context,
    );
    expect(oidc.upstream).toEqual({
      kind: "oidc",
      issuer: "https://id.example.com/realms/t",
      clientId: "mcpkit",
      clientSecret: undefined,
    });
    expect(oidc.state).toStartWith("sqlite:");
    const github = readAuthServerConfig({ "github-client-id": "Iv1", "github-client-secret": "s" }, context);
    expect(github.upstream.kind).toBe("github");
    expect(() => readAuthServerConfig({}, context)).toThrow(/--upstream-issuer URL --upstream-client-id ID/);
    expect(() => readAuthServerConfig({ "github-client-id": "Iv1" }, context)).toThrow(/--github-client-secret/);
    expect(() =>
      readAuthServerConfig(
        { "github-client-id": "Iv1", "github-client-secret": "s", "upstream-issuer": "https://x.example" },
        context,
      ),
    ).toThrow(/keep one/);
  });

  test("--sign-in-lifetime and --identity-recheck take durations, default to 30 days and 15 minutes, and name themselves when wrong", () => {
    const context = { publicUrl: "https://mcp.example.com", scopesSupported: ["boj:read"] };
    const idp = { "github-client-id": "Iv1", "github-client-secret": "s" };
    const defaults = resolveConfig(readAuthServerConfig(idp, context));
    expect(defaults.signInLifetime).toBe(30 * 86_400);
    expect(defaults.identityRecheck).toBe(900);
    const set = readAuthServerConfig({ ...idp, "sign-in-lifetime": "12h", "identity-recheck": "0" }, context);
    expect(resolveConfig(set).signInLifetime).toBe(12 * 3600);
    expect(resolveConfig(set).identityRecheck).toBe(0);
    expect(() => readAuthServerConfig({ ...idp, "sign-in-lifetime": "a week" }, context)).toThrow(
      /--sign-in-lifetime "a week" is not a duration; write it like 30d/,
    );
    expect(() => resolveConfig(readAuthServerConfig({ ...idp, "sign-in-lifetime": "1m" }, context))).toThrow(
      /--sign-in-lifetime\) must be at least 300 seconds/,
    );
  });
});

describe("rate limiter (issue 18 G4)", () => {
  test("the server-wide bound counts rows written, not requests: many addresses never reset it", () => {
    // A fixed clock: the 20,050 requests all fall in one minute however slow the machine.
    const limiter = createRateLimiter(5, 100, () => 1_000_000);
    let admitted = 0;
    let refused = 0;
    for (let i = 0; i < 20_050; i++) {
      if (limiter.admit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`) > 0) continue;
      admitted++;
      if (limiter.commit() > 0) refused++;
    }
    // 100 rows in the minute; every one after that is refused, even past the 10,000-address table size.
    expect(admitted).toBeGreaterThan(ADDRESS_WINDOWS_MAX);
    expect(refused).toBe(admitted - 100);
  });

  test("junk admitted from many addresses uses none of the server-wide bound", () => {
    const limiter = createRateLimiter(5, 10);
    for (let i = 0; i < 1_000; i++) limiter.admit(`192.0.2.${i % 250}`); // junk: admitted, never committed
    expect(limiter.admit("198.51.100.7")).toBe(0);
    expect(limiter.commit()).toBe(0);
  });

  test("per address: the sixth attempt in a minute waits, another address does not; a new window starts fresh", () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(5, 100, () => now);
    const waits = Array.from({ length: 6 }, () => limiter.admit("192.0.2.1"));
    expect(waits.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(waits[5]).toBe(60);
    expect(limiter.admit("192.0.2.2")).toBe(0);
    now += 60_000;
    expect(limiter.admit("192.0.2.1")).toBe(0);
  });

  test("IPv6 addresses count per /64; IPv4-mapped addresses as their IPv4 address", () => {
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:1:2::ffff")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:DB8:0001:0002:0:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressBucket("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressBucket("192.0.2.1")).toBe("192.0.2.1");
    const limiter = createRateLimiter(5, 100);
    for (let i = 0; i < 5; i++) expect(limiter.admit(`2001:db8:1:2::${i + 1}`)).toBe(0);
    expect(limiter.admit("2001:db8:1:2:ffff::1")).toBeGreaterThan(0); // same /64
    expect(limiter.admit("2001:db8:1:3::1")).toBe(0); // another /64
  });

  test("an address counts in one bucket however it is written: a dotted tail, hex IPv4-mapped", () => {
    // The dotted tail is two groups: `1:2::3:4:5:1.2.3.4` is 1:2:0:3:…, so its /64 is 1:2:0:3 (was 1:2:0:0).
    expect(addressBucket("1:2::3:4:5:1.2.3.4")).toBe("1:2:0:3::/64");
    expect(addressBucket("1:2:0:3:4:5:102:304")).toBe("1:2:0:3::/64");
    expect(networkBucket("1:2::3:4:5:1.2.3.4")).toBe("1:2:0::/48");
    // IPv4-mapped in hex is the same client as dotted (was one /64, 0:0:0:0, for every such client).
    expect(addressBucket("::ffff:c000:201")).toBe("192.0.2.1");
    expect(addressBucket("::FFFF:192.0.2.1")).toBe("192.0.2.1");
    expect(networkBucket("::ffff:c000:201")).toBe("192.0.2.0/24");
    // Not an address (a browser's nonce): its own key, and no network.
    expect(addressBucket("nonce:abc")).toBe("nonce:abc");
    expect(networkBucket("nonce:abc")).toBe("not an address");
  });
});

describe("rate limiter: a full table resets no one's counter", () => {
  const hex = (n: number) => n.toString(16);
  /** Makes one request from each of `count` distinct /64s of the /48 `prefix`; returns how many were admitted. */
  const requestFromDistinct64s = (limiter: RateLimiter, prefix: string, count: number, first = 0): number => {
    let admitted = 0;
    for (let i = first; i < first + count; i++) if (limiter.admit(`${prefix}:${hex(i)}::1`) === 0) admitted++;
    return admitted;
  };
  const useUp = (limiter: RateLimiter, address: string) => {
    for (let i = 0; i < 5; i++) expect(limiter.admit(address)).toBe(0);
    expect(limiter.admit(address)).toBeGreaterThan(0);
  };

  test("an address at its limit stays limited after 10,000 other /64s each made a request in its minute", () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(5, 100, () => now);
    const abuser = "2001:db8:1:ffff::1"; // in the network that fills the table
    const bystander = "192.0.2.1";
    useUp(limiter, abuser);
    useUp(limiter, bystander);
    now += 10_000;
    requestFromDistinct64s(limiter, "2001:db8:1", ADDRESS_WINDOWS_MAX + 1);
    expect(limiter.admit(abuser)).toBe(50);
    expect(limiter.admit(bystander)).toBe(50);
    now += 50_000;
    expect(limiter.admit(abuser)).toBe(0); // its own minute is over: a new window, as under normal load
  });

  test("newcomers while the address windows are full of live ones are counted by /48 (IPv6) or /24 (IPv4)", () => {
    const limiter = createRateLimiter(5, 100, () => 1_000_000);
    expect(requestFromDistinct64s(limiter, "2001:db8:1", ADDRESS_WINDOWS_MAX)).toBe(ADDRESS_WINDOWS_MAX);
    // More /64s of the flooding /48 share one window: 5 admitted, then none.
    expect(requestFromDistinct64s(limiter, "2001:db8:1", 1_000, ADDRESS_WINDOWS_MAX)).toBe(5);
    // Newcomers from other networks are not held back by that flood.
    expect(requestFromDistinct64s(limiter, "2001:db8:2", 5)).toBe(5);
    expect(limiter.admit("2001:db8:2:ffff::1")).toBeGreaterThan(0); // the sixth of its /48
    for (let i = 1; i <= 5; i++) expect(limiter.admit(`198.51.100.${i}`)).toBe(0);
    expect(limiter.admit("198.51.100.6")).toBeGreaterThan(0); // the sixth of its /24
    expect(networkBucket("2001:db8:1:ffff::1")).toBe("2001:db8:1::/48");
    expect(networkBucket("::ffff:198.51.100.6")).toBe("198.51.100.0/24");
  });

  test("when the network windows are full too, the remaining newcomers share one window", () => {
    const limiter = createRateLimiter(5, 100, () => 1_000_000);
    requestFromDistinct64s(limiter, "2001:db8:1", ADDRESS_WINDOWS_MAX);
    for (let i = 0; i < NETWORK_WINDOWS_MAX; i++) expect(limiter.admit(`2001:db9:${hex(i)}::1`)).toBe(0);
    let admitted = 0;
    for (let i = 0; i < 100; i++) if (limiter.admit(`2001:dba:${hex(i)}::1`) === 0) admitted++;
    expect(admitted).toBe(5);
  });

  test("expired windows make room first; a window started anew after its minute is live, not expired", () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(5, 100, () => now);
    const returning = "192.0.2.1";
    useUp(limiter, returning);
    requestFromDistinct64s(limiter, "2001:db8:1", ADDRESS_WINDOWS_MAX - 1); // the table is now full
    now += 60_000;
    useUp(limiter, returning); // its new minute
    // Every expired window makes room: each newcomer gets its own window, none is counted by its /48.
    expect(requestFromDistinct64s(limiter, "2001:db8:2", ADDRESS_WINDOWS_MAX - 1)).toBe(ADDRESS_WINDOWS_MAX - 1);
    now += 30_000;
    expect(requestFromDistinct64s(limiter, "2001:db8:3", 6)).toBe(5); // full of live windows: by /48
    expect(limiter.admit(returning)).toBe(30);
    expect(limiter.windowsHeld()).toBe(ADDRESS_WINDOWS_MAX + 1);
  });

  test("the windows held never exceed the bound, over minutes of distinct addresses and networks", () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(5, 100, () => now);
    const bound = ADDRESS_WINDOWS_MAX + NETWORK_WINDOWS_MAX;
    let most = 0;
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 25_000; i++) {
        limiter.admit(`2001:${hex(minute + 1)}:${hex(i)}::1`); // a new /48 each time
        now += 1;
        most = Math.max(most, limiter.windowsHeld());
      }
      now += 60_000;
    }
    expect(most).toBe(bound);
  });
});

describe("throttled log", () => {
  test("a failure repeated on every request logs once per interval, then says how many were left out", () => {
    const lines: string[] = [];
    let now = 1_000_000;
    const note = throttledLog(
      createLogger("debug", (line) => lines.push(line)),
      60_000,
      () => now,
    );
    for (let index = 0; index < 100; index++) note("store down", { path: "/token" });
    expect(lines.length).toBe(1);
    now += 59_999;
    note("store down", { path: "/token" });
    expect(lines.length).toBe(1);
    now += 1;
    note("store down", { path: "/token" });
    expect(lines.length).toBe(2);
    expect(lines[1]).toContain("suppressed=100");
  });
});

describe("the OIDC sign-in asks for what a later re-check needs (issue 18 G5)", () => {
  async function scopeAsked(scopesSupported: string[] | undefined): Promise<string[]> {
    const idp: ReturnType<typeof Bun.serve> = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (): Response =>
        Response.json({
          issuer: `http://127.0.0.1:${idp.port}`,
          authorization_endpoint: `http://127.0.0.1:${idp.port}/authorize`,
          token_endpoint: `http://127.0.0.1:${idp.port}/token`,
          jwks_uri: `http://127.0.0.1:${idp.port}/jwks`,
          response_types_supported: ["code"],
          ...(scopesSupported ? { scopes_supported: scopesSupported } : {}),
        }),
    });
    try {
      const upstream = createUpstream(
        { kind: "oidc", issuer: `http://127.0.0.1:${idp.port}`, clientId: "mcpkit" },
        "http://127.0.0.1:1/callback",
        false,
      );
      const url = new URL(await upstream.authorizationUrl({ state: "s", verifier: "v".repeat(43) }));
      return (url.searchParams.get("scope") ?? "").split(" ");
    } finally {
      await idp.stop(true);
    }
  }

  test("offline_access (an upstream refresh token) where the IdP offers it, and not where it does not", async () => {
    expect(await scopeAsked(["openid", "email", "offline_access"])).toContain("offline_access");
    expect(await scopeAsked(["openid", "email"])).not.toContain("offline_access");
    expect(await scopeAsked(undefined)).toEqual(["openid", "email", "profile"]);
  });
});

describe("cookies (Bun.Cookie and Bun.CookieMap, not hand-written parsing)", () => {
  test("a value set is the value read back, whatever characters it holds; attributes follow the settings", () => {
    const value = "abc.DEF-_x==; not=another";
    const header = setCookie("__Host-mcpkit-browser", value, 600, { secure: true, port: "443" });
    expect(header).toContain("HttpOnly");
    expect(header).toContain("SameSite=Lax");
    expect(header).toContain("Secure");
    expect(header).toContain("Max-Age=600");
    const pair = header.split("; ")[0] ?? "";
    const request = new Request("http://127.0.0.1/", { headers: { cookie: `other=1; ${pair}; last=2` } });
    expect(readCookie(request, "__Host-mcpkit-browser")).toBe(value);
    expect(readCookie(request, "missing")).toBeUndefined();
    expect(setCookie("b-8080", "v", 0, { secure: false, port: "8080" })).not.toContain("Secure");
  });
});
