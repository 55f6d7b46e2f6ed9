/**
 * The `fs` toolset built from its configuration (`index.ts` reads the options): the search tool
 * with its cursors and stat worker. Loaded only when the toolset is built, so a `mcpkit call` of
 * another toolset's tool never evaluates the search and its walks; and the stat worker's code, like
 * the search's (search-by-time-tool.ts), loads at the first search, not when a server starts
 * (~1 ms of a stdio start-up's CPU; test/stdio/startup-imports.test.ts).
 */
import { lazy } from "../../core/lazy.ts";
import type { Toolset } from "../../core/tool.ts";
import type { Runtime } from "../../core/toolset-module.ts";
import { CursorCodec, cursorKey } from "./cursor.ts";
import type { FsConfig } from "./index.ts";
import { searchByTimeTool } from "./search-by-time-tool.ts";

export function createFs(config: FsConfig, runtime: Runtime): Toolset {
  const cursors = new CursorCodec(cursorKey(config.cursorSecret, runtime.mode === "call"));
  const hasRoots = config.roots.length > 0;
  const statWorker = lazy(() => new (require("./stat-worker.ts") as typeof import("./stat-worker.ts")).StatWorker());
  return {
    name: "fs",
    tools: [
      searchByTimeTool({
        roots: config.roots,
        mode: runtime.mode,
        limits: config.limits,
        nativeWalk: config.nativeWalk,
        cursors,
        statWorker: statWorker.get,
      }),
    ],
    close: () => statWorker.ifMade()?.close(),
    // Without configured roots the tool stays listed and uses the client's roots, or says how to configure one.
    warning: hasRoots
      ? undefined
      : "fs: no --root given; fs_search_by_time will search the client's roots, or answer with how to configure a root",
  };
}
