/**
 * Options are declared once (core/options.ts): a flag's schema holds its check and its default,
 * and --help shows that default, so the two can no longer drift apart.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { coreOptions } from "../../src/cli/options.ts";
import { ConfigError, type OptionSpec, defaultTextOf, integerOption, readDeclared } from "../../src/core/options.ts";
import { httpOptions } from "../../src/mcp/http/config.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";
import { runCli } from "../support/mcp.ts";

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
});
