/**
 * The `fs` toolset module: options, configuration and the toolset (`fs.search_by_time`).
 */
import { delimiter } from "node:path";
import * as v from "valibot";
import { ConfigError, describeOption, integerOption, type OptionSpec, readOptions } from "../../core/options.ts";
import { defineToolsetModule, type Runtime } from "../../core/toolset-module.ts";
import { CursorCodec, cursorKey } from "./cursor.ts";
import { type AllowedRoot, resolveRoot } from "./roots.ts";
import type { SearchLimits } from "./search.ts";
import { StatWorker } from "./stat-worker.ts";
import { searchByTimeTool } from "./tool.ts";

export const DEFAULT_MAX_DEPTH = 64;
export const DEFAULT_TIME_BUDGET_MS = 20_000;

const options = [
  { name: "root", env: "MCPKIT_ROOTS", kind: "list", valueName: "DIR", help: `directory fs.search_by_time may search; MCPKIT_ROOTS lists several separated by "${delimiter}"` },
  { name: "fs-max-depth", env: "MCPKIT_FS_MAX_DEPTH", kind: "string", valueName: "N", help: "deepest directory level below the start path that fs.search_by_time reads", defaultText: String(DEFAULT_MAX_DEPTH) },
  { name: "fs-time-budget-ms", env: "MCPKIT_FS_TIME_BUDGET_MS", kind: "string", valueName: "MS", help: "time one fs.search_by_time call may walk before returning partial results", defaultText: String(DEFAULT_TIME_BUDGET_MS) },
  { name: "fs-cursor-secret", env: "MCPKIT_FS_CURSOR_SECRET", kind: "string", valueName: "SECRET", help: "key that signs page cursors, so several server instances accept each other's (default: random per process)" },
] as const satisfies readonly OptionSpec[];

const optionSchema = v.object({
  root: v.optional(v.array(v.string())),
  "fs-max-depth": integerOption(1, 4096, DEFAULT_MAX_DEPTH, "levels"),
  "fs-time-budget-ms": integerOption(100, 3_600_000, DEFAULT_TIME_BUDGET_MS, "milliseconds"),
  "fs-cursor-secret": v.optional(v.pipe(v.string(), v.minLength(16, "expected at least 16 characters"))),
});

export interface FsConfig {
  roots: AllowedRoot[];
  limits: SearchLimits;
  cursorSecret: string | undefined;
}

export const fs = defineToolsetModule<FsConfig>({
  name: "fs",
  summary: "fs.search_by_time: find files under allowed roots by modified or created time",
  options,
  configure(values, runtime) {
    const read = readOptions(optionSchema, options, values);
    if (read["fs-cursor-secret"]) runtime.log.redact(read["fs-cursor-secret"]);
    const given = (read.root ?? []).filter((dir) => dir !== "");
    // `mcpkit call` has no client to offer roots, so it searches the current directory by default.
    if (given.length === 0 && runtime.mode === "call") given.push(runtime.cwd);
    const roots = given.map((dir) => {
      const root = resolveRoot(dir, runtime.cwd);
      if (typeof root === "string") throw new ConfigError(`invalid ${describeOption(options[0])}: ${root}; pass an existing directory`);
      return root;
    });
    return {
      roots,
      limits: { maxDepth: read["fs-max-depth"], budgetMs: read["fs-time-budget-ms"] },
      cursorSecret: read["fs-cursor-secret"],
    };
  },
  create(config: FsConfig, runtime: Runtime) {
    const cursors = new CursorCodec(cursorKey(config.cursorSecret, runtime.mode === "call"));
    const hasRoots = config.roots.length > 0;
    const helper = new StatWorker();
    return {
      name: "fs",
      tools: [searchByTimeTool({ configured: config.roots }, config.limits, cursors, helper)],
      close: () => helper.close(),
      // Without configured roots the tool stays listed and uses the client's roots, or says how to configure one.
      warning: hasRoots ? undefined : "fs: no --root given; fs_search_by_time will search the client's roots, or answer with how to configure a root",
    };
  },
});
