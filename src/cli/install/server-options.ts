/**
 * The server's options `mcpkit install` writes into an entry: --toolsets and every option a toolset declares
 * (toolsets/index.ts), each handled as its declaration says (`secret`, `directory`, `path`, `check`, its schema), so that a
 * new toolset's options are installable with no line here.
 */
import { ConfigError, type OptionSpec, refusalOf } from "../../core/options.ts";
import { toolsetModules } from "../../toolsets/index.ts";
import { toolsetsOption } from "../options.ts";

/**
 * Folders first, then --toolsets, then the toolsets' options in the registry's order: a fixed order, so that the same
 * options typed in another order leave an entry as it is (and entries written before stay byte for byte).
 */
export const SERVER_OPTIONS: readonly OptionSpec[] = (() => {
  const owned = toolsetModules.flatMap((module) => module.options);
  return [...owned.filter((spec) => spec.directory), toolsetsOption, ...owned.filter((spec) => !spec.directory)];
})();

/** The server option that `--NAME` is, if any. */
export function serverOption(name: string): OptionSpec | undefined {
  return SERVER_OPTIONS.find((spec) => spec.name === name);
}

/** A secret option's variable, uppercase: what Windows reads `oj_token` as. */
const SECRET_VARIABLES = new Map(
  SERVER_OPTIONS.flatMap((spec) => (spec.secret && spec.env ? [[spec.env.toUpperCase(), spec] as const] : [])),
);

/** The secret option an entry's `env` key (any case) or a command-line flag (`--oj-token`) belongs to. */
export function secretOptionOf(keyOrFlag: string): OptionSpec | undefined {
  if (keyOrFlag.startsWith("--")) return SERVER_OPTIONS.find((spec) => spec.secret && `--${spec.name}` === keyOrFlag);
  return SECRET_VARIABLES.get(keyOrFlag.toUpperCase());
}

/** Values given for server options, by option name, in the order given (a `list` option may have several). */
export type ServerValues = Map<string, string[]>;

/** How install makes a value absolute: a `directory` option's (throwing when there is no such folder), a `path` one's. */
export interface PathResolver {
  folder: (flag: string, value: string) => string;
  absolute: (relative: string) => string;
}

/**
 * The entry's arguments and environment for `values`, each value checked as the server checks it, a `directory` or
 * `path` option's made absolute by `resolve`.
 */
export function serverArgs(
  values: ServerValues,
  resolve: PathResolver,
): { args: string[]; env: Record<string, string> } {
  const args: string[] = [];
  const env: Record<string, string> = {};
  for (const spec of SERVER_OPTIONS) {
    const given = values.get(spec.name);
    if (given === undefined) continue;
    const refusal = refusalOf(spec, spec.kind === "list" ? given : (given.at(-1) as string));
    // The value is not repeated: it may be a secret, or a URL with one in it.
    if (refusal !== undefined) throw new ConfigError(`--${spec.name}: ${refusal}`);
    const flag = `--${spec.name}`;
    const shown = (value: string) => {
      if (spec.directory) return resolve.folder(flag, value);
      return spec.path ? spec.path(value, resolve.absolute) : value;
    };
    if (spec.secret && spec.env) env[spec.env] = shown(given.at(-1) as string);
    else if (spec.kind === "boolean") args.push(flag);
    else for (const value of spec.kind === "list" ? given : given.slice(-1)) args.push(flag, shown(value));
  }
  return { args, env };
}

/** The lines of `mcpkit install --help` for the server options, from their declarations. */
export function serverOptionsHelp(): string {
  const rows = SERVER_OPTIONS.map((spec) => {
    const value = spec.kind === "boolean" ? "" : ` ${spec.valueName ?? "VALUE"}`;
    const flag = `--${spec.name}${value}${spec.kind === "list" ? " (repeatable)" : ""}`;
    if (spec.secret && spec.env)
      return [
        flag,
        `written to the entry's env as ${spec.env} (the file and its .bak made 0600); never printed; left out of a --link`,
      ];
    // What the folder is for, without how the server's environment lists several: install writes flags.
    if (spec.directory) return [flag, `${spec.help.split("; ")[0]}; must exist; written as an absolute path`];
    if (spec.path) return [flag, `${spec.help}; a relative path is written absolute`];
    return [flag, spec.help];
  });
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 4;
  return rows
    .flatMap(([flag, text]) =>
      wrapped(text, HELP_COLUMNS - width).map((line, index) =>
        index === 0 ? `  ${flag.padEnd(width - 2)}${line}` : `${" ".repeat(width)}${line}`,
      ),
    )
    .join("\n");
}

/** The width of install's help text, as its fixed part is written. */
const HELP_COLUMNS = 112;

/** `text` in lines of at most `columns` characters, broken at spaces (a longer word stays whole). */
function wrapped(text: string, columns: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > columns) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line];
}
