/**
 * Options are declared once (core/options.ts): a flag's schema holds its check and its default,
 * and --help shows that default, so the two can no longer drift apart.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { coreOptions } from "../../src/cli/options.ts";
import {
  ConfigError,
  type OptionSpec,
  defaultTextOf,
  integerOption,
  readDeclared,
  withoutCredentials,
} from "../../src/core/options.ts";
import { httpOptions } from "../../src/mcp/http/config.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";
import { REPO_ROOT, runCli } from "../support/mcp.ts";

const declared: readonly OptionSpec[] = [
  ...coreOptions,
  ...toolsetModules.flatMap((module) => module.options),
  ...httpOptions,
];

describe("options declared once", () => {
  test("--help shows each option's default as its schema holds it", async () => {
    const { stdout } = await runCli(["--help"]);
    const withDefaults = declared.filter((spec) => spec.schema && spec.defaultText === undefined);
    expect(withDefaults.length).toBeGreaterThan(10);
    for (const spec of withDefaults) {
      const shown = defaultTextOf(spec);
      if (shown === undefined) continue;
      const line = stdout.split("\n").findIndex((text) => text.includes(`--${spec.name} `));
      const block = stdout
        .split("\n")
        .slice(line, line + 4)
        .join(" ");
      expect(block, spec.name).toContain(`Default: ${shown}.`);
    }
  });

  test("a value is read, converted and defaulted by the schema beside the flag; a bad one names flag and variable", () => {
    const specs = [
      { name: "x-count", env: "X_COUNT", kind: "string", help: "a count", schema: integerOption(1, 9, 3) },
      { name: "x-name", kind: "string", help: "a name", schema: v.optional(v.string(), "anon") },
    ] as const satisfies readonly OptionSpec[];
    expect(readDeclared(specs, {})).toEqual({ "x-count": 3, "x-name": "anon" });
    expect(readDeclared(specs, { "x-count": "7" })["x-count"]).toBe(7);
    expect(() => readDeclared(specs, { "x-count": "70" })).toThrow(ConfigError);
    expect(() => readDeclared(specs, { "x-count": "70" })).toThrow("--x-count (X_COUNT)");
    expect(defaultTextOf(specs[0])).toBe("3");
  });

  test("a secret option's refused value is never repeated, from the flag or from its variable", async () => {
    const flag = await runCli(["tools", "--toolsets", "fs", "--root", REPO_ROOT, "--fs-cursor-secret", "short123"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--fs-cursor-secret (MCPKIT_FS_CURSOR_SECRET): expected at least 16 characters");
    expect(flag.stderr).toContain("(value not shown)");
    // It was repeated whole: (got "short123").
    expect(flag.stderr).not.toContain("short123");
    const variable = await runCli(["tools", "--toolsets", "fs", "--root", REPO_ROOT], {
      env: { MCPKIT_FS_CURSOR_SECRET: "tiny-secret" },
    });
    expect(variable.code).toBe(2);
    expect(variable.stderr).not.toContain("tiny-secret");
  });
});

/**
 * A URL option never takes a user name or password (BOJ's base URL was logged whole at debug
 * level and kept as the key of the shared catalogue), and a refused value is repeated with its
 * user part masked, however odd the password (one holding `/` or `@` was printed in part).
 */
describe("URL options and credentials", () => {
  const secretUrls = [
    "https://alice:s3cret-pw@example.com",
    "https://alice:s3/cret-pw@example.com/",
    "https://alice:s3@cret-pw@example.com",
    "ftp://alice:s3cret-pw@example.com",
    // Forms without "//" the URL parser still reads a user and a password from.
    "https:alice:s3cret-pw@example.com/",
    "https:/alice:s3cret-pw@example.com",
    "alice:s3cret-pw@example.com",
  ];

  test.each(["--boj-base-url", "--oj-base-url"])(
    "%s refuses each, naming the flag, without any piece of the password",
    async (flag) => {
      for (const url of secretUrls) {
        const { code, stdout, stderr } = await runCli(["tools", flag, url]);
        expect(code, url).toBe(2);
        expect(stdout).toBe("");
        expect(stderr, url).toContain(`invalid ${flag}`);
        expect(stderr, url).toContain("***@");
        // The password, whole or in part ("alice" may stay: read without "//" it is the URL's scheme).
        for (const fragment of ["s3cret", "cret-pw", "s3/"]) expect(stderr, url).not.toContain(fragment);
      }
    },
  );

  // A refused URL was repeated with only its user info masked: `?key=SECRET` showed whole on stderr.
  // The server's own options are read only when it serves, hence --http (refused before it listens).
  test.each([
    ["--boj-base-url", "tools"],
    ["--oj-base-url", "tools"],
    ["--public-url", "--http"],
    ["--jwks-url", "--http"],
    ["--issuer", "--http"],
    ["--upstream-issuer", "--http"],
  ])("%s refuses a URL without repeating its query values or fragment", async (flag, command) => {
    const mode = command === "--http" ? ["--http", "127.0.0.1:0"] : [command];
    const { code, stdout, stderr } = await runCli([...mode, flag, "ftp://x/p?key=SECRETQ&SECRETB&e=a#tok=SECRETF"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`invalid ${flag}`);
    expect(stderr).toContain('(got "ftp://x/p?key=***&***&e=***#***")');
    expect(stderr).not.toContain("SECRET");
  });

  test("an '@' in the query or fragment: nothing after the first '?' or '#' shows", () => {
    expect(withoutCredentials("https://h/?email=a@b.c&key=SECRETQ")).toBe("***@***");
    expect(withoutCredentials("https://u:p#w@h/?key=SECRETQ")).toBe("***@***");
    expect(withoutCredentials("https://h/?")).toBe("https://h/?");
  });

  test("--boj-base-url says how to fix it", async () => {
    const { stderr } = await runCli(["tools", "--boj-base-url", secretUrls[0]]);
    expect(stderr).toContain("the URL must not carry a user name or password");
  });
});
