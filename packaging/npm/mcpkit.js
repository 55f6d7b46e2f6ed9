#!/usr/bin/env node
// The `mcpkit` npm package's bin: runs the native binary from the package for this OS/arch
// (@mcpkit/<os>-<arch>, an optionalDependency npm installs only where its os/cpu fields match,
// as esbuild and Biome ship theirs). No postinstall step; stdio, exit code and signals pass through.
"use strict";
const { chmodSync, statSync } = require("node:fs");
const { spawn } = require("node:child_process");

const os = process.platform === "win32" ? "windows" : process.platform;
const target = `${os}-${process.arch}`;
const executable = process.platform === "win32" ? "mcpkit.exe" : "mcpkit";

function findBinary() {
  try {
    return require.resolve(`@mcpkit/${target}/bin/${executable}`);
  } catch {
    process.stderr.write(
      `mcpkit: no binary for ${target}: the optional dependency @mcpkit/${target} is not installed. ` +
        "Reinstall without --no-optional / --omit=optional, or download a release archive.\n",
    );
    process.exit(1);
  }
}

const binary = findBinary();
if (process.platform !== "win32") {
  // Some package managers unpack without the execute bit; restore it rather than fail with EACCES.
  try {
    const mode = statSync(binary).mode;
    if ((mode & 0o100) === 0) chmodSync(binary, mode | 0o755);
  } catch {}
}
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (error) => {
  process.stderr.write(`mcpkit: cannot start ${binary}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
