#!/usr/bin/env node
// Entry point of the mcpkit MCP bundle (.mcpb). It exists for two reasons:
// 1. Hosts unpack bundles without the binary's execute bit (modelcontextprotocol/mcpb #12, #13, #42;
//    macOS writes 0600, #294), so a "binary" server would fail with EACCES. This script restores the
//    bit, then runs the binary.
// 2. Hosts leave an unset option as the literal "${user_config.NAME}" (or pass ""), so the manifest
//    passes each option as a "--flag VALUE" pair and this script drops pairs whose value is unset:
//    an option the user left empty adds no flag.
// Usage: launch.js --binary PATH [--FLAG VALUE]... [--roots DIR...]   (--roots comes last)
"use strict";
const { chmodSync, statSync } = require("node:fs");
const { spawn } = require("node:child_process");

const UNSET = /^\$\{user_config\.[^}]*\}$/;
const isSet = (value) => typeof value === "string" && value !== "" && !UNSET.test(value);

function translate(argv) {
  let binary;
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--roots") {
      for (const root of argv.slice(i + 1)) if (isSet(root)) args.push("--root", root);
      break;
    }
    const value = argv[++i];
    if (flag === "--binary") binary = value;
    else if (isSet(value)) args.push(flag, value);
  }
  if (!binary) throw new Error("launch.js: --binary PATH is missing from the bundle's mcp_config");
  return { binary, args };
}

function ensureExecutable(binary) {
  if (process.platform === "win32") return;
  const mode = statSync(binary).mode;
  if ((mode & 0o100) === 0) chmodSync(binary, mode | 0o700);
}

function main() {
  const { binary, args } = translate(process.argv.slice(2));
  ensureExecutable(binary);
  const env = { ...process.env };
  for (const name of ["OJ_TOKEN"]) if (!isSet(env[name])) delete env[name];
  const child = spawn(binary, args, { stdio: "inherit", env });
  // The host stops the server with a signal; pass it on so the binary shuts down cleanly.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => {
    process.stderr.write(`mcpkit bundle: cannot start ${binary}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    else process.exit(code ?? 1);
  });
}

main();
