/**
 * mcpkit reads its command line without node:util (src/cli/plain-args.ts) for the forms it takes,
 * and leaves every other form to node:util's `parseArgs`: what the plain reader returns is what
 * `parseArgs` returns for the same arguments, and what it is unsure of it does not read at all.
 */
import { describe, expect, test } from "bun:test";
import { parseArgs } from "node:util";
import { argOptionsOf, coreOptions, parseCommandLine } from "../../src/cli/options.ts";
import { parsePlainArgs } from "../../src/cli/plain-args.ts";
import { ConfigError } from "../../src/core/options.ts";
import { httpOptions } from "../../src/mcp/http/config.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";

const specs = [...coreOptions, ...toolsetModules.flatMap((module) => module.options), ...httpOptions];
const options = argOptionsOf(specs);
const byNode = (args: string[]) => {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
  return { values: { ...values }, positionals };
};

describe("the plain reader of the command line", () => {
  test("reads mcpkit's own command lines exactly as parseArgs does", () => {
    const lines = [
      [],
      ["--help"],
      ["-h"],
      ["-V"],
      ["--version"],
      ["tools"],
      ["--toolsets", "boj,fs", "--root", "/tmp/a", "--root", "/tmp/b"],
      ["--toolsets=boj", "--root=/srv", "--log-level", "debug", "--log-format=json"],
      ["--http", "127.0.0.1:0", "--auth", "none", "--allowed-hosts", "a.example,b.example"],
      ["call", "fs_search_by_time", '{"timeField":"modified","limit":5}', "--root", "/data", "--text"],
      ["call", "boj_get_parameter_catalog", "-"],
      ["call", "boj_list_databases", "--help"],
      ["--max-output-bytes=", "tools"],
      ["--root", "relative dir", "health", "http://127.0.0.1:1/health"],
      ["--boj-timeout-ms", "5000", "--boj-timeout-ms", "7000"],
      ["--root", "=odd", "--root=a=b"],
    ];
    for (const args of lines) {
      const plain = parsePlainArgs(args, options);
      expect(plain, args.join(" ")).toBeDefined();
      expect(plain, args.join(" ")).toEqual(byNode(args));
    }
  });

  test("leaves to parseArgs every form it is not sure of", () => {
    const unsure = [
      ["--"],
      ["--", "--root"],
      ["--root"],
      ["--root", "-x"],
      ["--root", "-"],
      ["--nope"],
      ["--nope=1"],
      ["--help=yes"],
      ["--=x"],
      ["-x"],
      ["-hV"],
      ["-5"],
      ["--constructor"],
      ["--__proto__=x"],
    ];
    for (const args of unsure) expect(parsePlainArgs(args, options), args.join(" ")).toBeUndefined();
  });

  test("errors are still parseArgs's, worded for mcpkit", () => {
    const read = (args: string[]) => () => parseCommandLine(args, {}, specs);
    expect(read(["--nope"])).toThrow(ConfigError);
    expect(read(["--rot", "/a"])).toThrow("unknown option --rot; did you mean --root?");
    expect(read(["--root"])).toThrow("option --root needs a value");
    expect(parseCommandLine(["--toolsets", "boj", "--", "--root"], {}, specs).positionals).toEqual(["--root"]);
  });
});
