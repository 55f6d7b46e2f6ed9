#!/usr/bin/env bun
/** mcpkit: one MCP server with toolsets for BOJ statistics, online-judge problems and file search. */
import { run } from "./cli/run.ts";

const code = await run(process.argv.slice(2), process.env);
// Exit explicitly: a toolset's timers or sockets must not keep a finished process alive.
process.exit(code);
