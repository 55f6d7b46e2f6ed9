/**
 * The `fs` toolset module: options, configuration and the toolset (`fs_search_by_time`).
 */
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import * as v from "valibot";
import { ConfigError, describeOption, integerOption, type OptionSpec, readDeclared } from "../../core/options.ts";
import { defineToolsetModule } from "../../core/toolset-module.ts";
import type { NativeWalkSetting } from "./native-walk.ts";
import { type AllowedRoot, resolveRoot } from "./roots.ts";
import type { SearchLimits } from "./search.ts";

export const DEFAULT_MAX_DEPTH = 64;
export const DEFAULT_TIME_BUDGET_MS = 20_000;

export const rootOption = {
  name: "root",
  env: "MCPKIT_ROOTS",
  kind: "list",
  valueName: "DIR",
  help: `directory fs_search_by_time may search; MCPKIT_ROOTS lists several separated by "${delimiter}"`,
  schema: v.optional(v.array(v.string())),
  directory: true,
} as const satisfies OptionSpec;

const options = [
  rootOption,
  {
    name: "fs-max-depth",
    env: "MCPKIT_FS_MAX_DEPTH",
    kind: "string",
    valueName: "N",
    help: "deepest directory level below the start path that fs_search_by_time reads",
    schema: integerOption(1, 4096, DEFAULT_MAX_DEPTH, "levels"),
  },
  {
    name: "fs-time-budget-ms",
    env: "MCPKIT_FS_TIME_BUDGET_MS",
    kind: "string",
    valueName: "MS",
    help: "time one fs_search_by_time call may take (walk included) before returning partial results",
    schema: integerOption(100, 3_600_000, DEFAULT_TIME_BUDGET_MS, "milliseconds"),
  },
  {
    name: "fs-native-walk",
    env: "MCPKIT_FS_NATIVE_WALK",
    kind: "string",
    valueName: "WHEN",
    help: "when a search without a glob hands its walk to native threads (Linux with glibc): auto (at once with the walk a release embeds, which MCPKIT_FS_NATIVE_PREBUILT=off trades for compiling it; else after 10 ms, at once once compiled), off, or a number of ms",
    schema: v.optional(
      v.pipe(
        v.string(),
        v.trim(),
        v.regex(/^(auto|off|\d{1,7})$/, "expected auto, off, or a whole number of milliseconds"),
        v.transform((text): NativeWalkSetting => (text === "auto" || text === "off" ? text : Number(text))),
      ),
      "auto",
    ),
  },
  {
    name: "fs-cursor-secret",
    env: "MCPKIT_FS_CURSOR_SECRET",
    kind: "string",
    valueName: "SECRET",
    help: "key that signs page cursors, so several server instances accept each other's (default: random per process)",
    schema: v.optional(v.pipe(v.string(), v.minLength(16, "expected at least 16 characters"))),
    secret: true,
  },
] as const satisfies readonly OptionSpec[];

export interface FsConfig {
  roots: AllowedRoot[];
  limits: SearchLimits;
  nativeWalk: NativeWalkSetting;
  cursorSecret: string | undefined;
}

/** Why fs is off over HTTP without --root: client roots describe the client's machine, not this one. */
export const HTTP_NEEDS_ROOT =
  "--root DIR (or MCPKIT_ROOTS): over HTTP only the server's own directories are searched, never the client's roots";

export const fs = defineToolsetModule<FsConfig>({
  name: "fs",
  summary: "fs_search_by_time: find files under allowed roots by modified or created time",
  options,
  configure(values, runtime) {
    const read = readDeclared(options, values);
    if (read["fs-cursor-secret"]) runtime.log.redact(read["fs-cursor-secret"]);
    // "~" as a shell would expand it: JSON client configs and MCPKIT_ROOTS reach us unexpanded.
    const given = (read.root ?? []).filter((dir) => dir !== "").map((dir) => expandHome(dir));
    // `mcpkit call` has no client to offer roots, so it searches the current directory by default.
    if (given.length === 0 && runtime.mode === "call") given.push(runtime.cwd);
    if (given.length === 0 && runtime.mode === "http") return { missing: HTTP_NEEDS_ROOT };
    const roots = given.map((dir) => {
      const root = resolveRoot(dir, runtime.cwd);
      if (typeof root === "string")
        throw new ConfigError(`invalid ${describeOption(rootOption)}: ${root}; pass an existing directory`);
      return root;
    });
    return {
      roots,
      limits: { maxDepth: read["fs-max-depth"], budgetMs: read["fs-time-budget-ms"] },
      nativeWalk: read["fs-native-walk"],
      cursorSecret: read["fs-cursor-secret"],
    };
  },
  // The search, its walks and its worker load only when the toolset is built (toolset.ts).
  create: (config, runtime) => (require("./toolset.ts") as typeof import("./toolset.ts")).createFs(config, runtime),
});

/** A leading "~" or "~/…" (or "~\\…") is the home directory; "~user" forms are left as they are. */
export function expandHome(dir: string, home = homedir()): string {
  if (dir === "~") return home;
  if (dir.startsWith("~/") || dir.startsWith("~\\")) return join(home, dir.slice(2));
  return dir;
}
