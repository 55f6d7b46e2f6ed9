/** Every toolset mcpkit ships, in the order `tools/list` shows them. */
import type { ToolsetModule } from "../core/toolset-module.ts";
import { boj } from "./boj/index.ts";
import { fs } from "./fs/index.ts";
import { oj } from "./oj/index.ts";

export const toolsetModules: readonly ToolsetModule[] = [boj, oj, fs];
