import { describe, expect, test } from "bun:test";
import { createLogger, levelFromRustLog } from "../../src/core/log.ts";

describe("RUST_LOG compatibility", () => {
  test.each([
    ["info", "info"],
    ["off", "off"],
    ["TRACE", "trace"],
    ["warn,oj_mcp=debug", "warn"],
    ["oj_mcp=debug,hyper=info", "debug"],
    ["nonsense", undefined],
  ])("%p reads as %p", (value, level) => {
    expect(levelFromRustLog(value)).toBe(level as never);
  });
});

describe("logger", () => {
  test("filters by level and never prints a redacted secret", () => {
    const lines: string[] = [];
    const log = createLogger("info", (line) => lines.push(line));
    log.redact("s3cr3t-token");
    log.debug("hidden");
    log.info("calling with s3cr3t-token", { header: "Bearer s3cr3t-token" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("s3cr3t-token");
    expect(lines[0]).toContain("[redacted]");
  });

  test("a short secret is hidden where it stands whole, without scrambling the words that contain it", () => {
    const lines: string[] = [];
    const log = createLogger("info", (line) => lines.push(line));
    log.redact("s");
    log.redact("pw");
    log.info("listening on stdio", { password: "pw", header: "Bearer s", url: "postgres://u:pw@db/x" });
    expect(lines[0]).toContain("listening on stdio");
    expect(lines[0]).toContain('password="[redacted]"');
    expect(lines[0]).toContain('header="Bearer [redacted]"');
    expect(lines[0]).toContain("postgres://u:[redacted]@db/x");
    expect(lines[0]).not.toMatch(/[^\p{L}\p{N}](s|pw)[^\p{L}\p{N}]/u);
  });

  test("a secret with regular-expression characters is hidden literally", () => {
    const lines: string[] = [];
    const log = createLogger("info", (line) => lines.push(line));
    log.redact("a.b");
    log.info("value a.b and axb");
    expect(lines[0]).toContain("value [redacted] and axb");
  });

  test("a secret holding characters JSON escapes is hidden in a field and in a JSON line too", () => {
    const secret = 'pa"ss\\word\u0001-long-enough';
    for (const format of ["text", "json"] as const) {
      const lines: string[] = [];
      const log = createLogger("info", (line) => lines.push(line), format);
      log.redact(secret);
      log.info(`connect failed for ${secret}`, { password: secret });
      expect(lines[0]).not.toContain(JSON.stringify(secret).slice(1, -1));
      expect(lines[0]).not.toContain(secret);
      expect(lines[0]).not.toContain("long-enough");
      expect(lines[0].match(/\[redacted\]/g)).toHaveLength(2);
    }
  });

  test("off writes nothing", () => {
    const lines: string[] = [];
    const log = createLogger("off", (line) => lines.push(line));
    log.error("x");
    expect(lines).toEqual([]);
  });
});
