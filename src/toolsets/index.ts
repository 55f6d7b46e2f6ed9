/** Every toolset mcpkit ships, in the order `tools/list` shows them. */
import type { ToolsetModule } from "../core/toolset-module.ts";

export const toolsetModules: readonly ToolsetModule[] = [
];
