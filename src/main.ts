#!/usr/bin/env bun
/** mcpkit: one MCP server with toolsets for BOJ statistics, online-judge problems and file search. */
import { likelyNativeWalk, prestartNativeCompile } from "./toolsets/fs/native-thread.ts";
import { isFsCall, prestartStatThread } from "./toolsets/fs/stat-thread.ts";
import { writeStdout } from "./cli/stdout.ts";
import { NAME, VERSION } from "./version.ts";

const argv = process.argv.slice(2);
// `--version` alone is answered before the command line, toolsets and MCP stack load: a package
// manager or a client probing the binary should pay only for the runtime's own start. Written
// with Bun's own writer: the first use of `process.stdout` (a Node stream) cost 3–4 ms of CPU,
// more than the rest of the answer (test/cli/version-fast-path.test.ts fails if it comes back).
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V" || argv[0] === "-v")) {
  await writeStdout(`${NAME} ${VERSION}\n`);
} else {
  // A one-shot file search starts the thread it will need while the rest of the process starts:
  // the one compiling the native walk (native-thread.ts), or with a glob the stat thread (stat-thread.ts).
  if (isFsCall(argv)) {
    if (likelyNativeWalk(argv, process.env)) prestartNativeCompile();
    else prestartStatThread();
  }
  const { run } = await import("./cli/run.ts");
  const code = await run(argv, process.env);
  // Exit explicitly: a toolset's timers or sockets must not keep a finished process alive.
  process.exit(code);
}
