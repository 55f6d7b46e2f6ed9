/**
 * The command line as node:util's `parseArgs` (strict, positionals allowed) reads it, for the
 * forms mcpkit's command lines take: long options as `--name value` or `--name=value`, switches,
 * single-letter switches alone (`-h`), positionals (`-` among them). Anything else (`--`, a value
 * that starts with a dash, grouped letters, an unknown option, a switch given a value, a missing
 * value) is left to `parseArgs`, which reads it and words its errors: this reads nothing it is not
 * sure of. Loading node:util for `parseArgs` cost every stdio start-up 0.3–0.4 ms, 0.5 ms of CPU
 * (`bun scripts/bench/startup.ts --era modern --baseline`; alone in a bare binary, 0.7 ms: node:fs,
 * which a start still loads, shares part of it); test/cli/plain-args.test.ts holds the two to the same result,
 * and test/stdio/startup-imports.test.ts fails if a start-up loads node:util again.
 */

/** One option as `parseArgs` declares it. */
export interface ArgOption {
  type: "string" | "boolean";
  multiple?: boolean;
  short?: string;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** What `parseArgs({ args, options, allowPositionals: true, strict: true })` returns, or undefined when unsure. */
export function parsePlainArgs(args: readonly string[], options: Record<string, ArgOption>): ParsedArgs | undefined {
  const values: ParsedArgs["values"] = {};
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "-" || !arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith("--")) {
      const name = arg.length === 2 ? longNameOf(arg[1], options) : undefined;
      if (name === undefined || options[name].type !== "boolean" || options[name].multiple) return undefined;
      values[name] = true;
      continue;
    }
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) return undefined;
    let value: string | boolean;
    if (option.type === "boolean") {
      if (equals !== -1 || option.multiple) return undefined;
      value = true;
    } else if (equals !== -1) {
      value = arg.slice(equals + 1);
    } else {
      const next = args[index + 1];
      if (next === undefined || next.startsWith("-")) return undefined;
      value = next;
      index++;
    }
    if (option.multiple) ((values[name] as (string | boolean)[] | undefined) ?? (values[name] = [])).push(value);
    else values[name] = value;
  }
  return { values, positionals };
}

function longNameOf(letter: string, options: Record<string, ArgOption>): string | undefined {
  for (const name in options) if (options[name].short === letter) return name;
  return undefined;
}
