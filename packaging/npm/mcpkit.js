#!/usr/bin/env node
// The `mcpkit` npm package's bin: runs the native binary from the package for this OS/arch
// (@mcpkit/<os>-<arch>, an optionalDependency npm installs only where its os/cpu fields match,
// as esbuild and Biome ship theirs). No postinstall step; stdio, exit code and signals pass through.
//
// It runs only the binary npm put beside it, never one another folder offers. require.resolve would
// walk up every ancestor node_modules (a parent project's, the home folder's, /node_modules) when
// the platform package is absent (--omit=optional), so whoever could write any of those chose what
// ran. The binary is looked for where npm, pnpm and npx place a dependency of this package:
//   1. <this package>/node_modules/@mcpkit/<target>: nested, when a different version of the
//      platform package already sits in the folder above (and in global installs of some npm versions);
//   2. <node_modules holding this package>/@mcpkit/<target>: its sibling, where npm hoists it
//      (./node_modules/mcpkit next to ./node_modules/@mcpkit/linux-x64; npx's cache folder; pnpm's
//      .pnpm/mcpkit@V/node_modules, where the sibling is a link to the package's folder);
//   3. when this package is nested in another's node_modules (a second version of mcpkit, under
//      foo/node_modules), each node_modules further up the same tree, up to the project's own:
//      npm hoists the platform package as high as nothing conflicts (npm 11 put it in the app's
//      node_modules while mcpkit sat in node_modules/foo/node_modules).
// npm places a dependency only in the tree of node_modules folders that holds the package needing
// it, so the walk stops at the first folder that is not a package inside a node_modules (the
// project itself), or whose node_modules is another user's. Node resolves the links to this
// script, so these folders are the real package's, not .bin's.
// Yarn Plug'n'Play has no node_modules; its resolver answers only with declared dependencies (no
// walk up), so there require.resolve is kept.
//
// The file found must be a regular file (not a link: a link could point at any file of the user's,
// which the old launcher made executable and ran) owned by the user running mcpkit or by root (a
// global install with sudo). Only then is a missing execute bit restored, for the owner alone, as
// the .mcpb launcher does.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { spawn } = require("node:child_process");

const os = process.platform === "win32" ? "windows" : process.platform;
const target = `${os}-${process.arch}`;
const platformPackage = `@mcpkit/${target}`;
const executable = process.platform === "win32" ? "mcpkit.exe" : "mcpkit";
const REINSTALL =
  "Reinstall mcpkit with its optional dependencies (npm install mcpkit --include=optional, or without " +
  "--omit=optional / --no-optional and without omit=optional in .npmrc or NPM_CONFIG_OMIT), " +
  "or download the release archive for this machine instead.";

function fail(message) {
  process.stderr.write(`mcpkit: ${message}\n`);
  process.exit(1);
}

/** The places npm installs this package's dependencies (see the header), nearest first. */
function candidates() {
  const inside = path.join("bin", executable);
  let packageDir = path.dirname(__dirname);
  const places = [path.join(packageDir, "node_modules", platformPackage, inside)];
  for (let holder = holderOf(packageDir); holder; holder = holderOf(packageDir)) {
    if (places.length > 1 && !ownedByUserOrRoot(holder)) break;
    places.push(path.join(holder, platformPackage, inside));
    packageDir = path.dirname(holder);
  }
  return places;
}

/** The node_modules folder `dir` is a package of (node_modules/name or node_modules/@scope/name), if it is one. */
function holderOf(dir) {
  const parent = path.dirname(dir);
  if (path.basename(parent) === "node_modules") return parent;
  const grandparent = path.dirname(parent);
  if (path.basename(parent).startsWith("@") && path.basename(grandparent) === "node_modules") return grandparent;
  return undefined;
}

function ownedByUserOrRoot(dir) {
  if (typeof process.getuid !== "function") return true; // Windows: no owners to compare
  try {
    const { uid } = fs.statSync(dir);
    return uid === process.getuid() || uid === 0;
  } catch {
    return false;
  }
}

function findBinary() {
  if (process.versions.pnp) {
    try {
      return require.resolve(`${platformPackage}/bin/${executable}`);
    } catch {}
  } else {
    for (const place of candidates()) {
      try {
        fs.lstatSync(place);
        return place;
      } catch {}
    }
  }
  const looked = process.versions.pnp ? "" : ` (looked in ${candidates().join(" and ")})`;
  return fail(`no binary for ${target}: the optional dependency ${platformPackage} is not installed${looked}. ${REINSTALL}`);
}

/**
 * Refuses anything but a regular file owned by this user or root and restores the owner's execute bit, judging the
 * file through a descriptor opened without following a link; returns that descriptor (undefined on Windows, which has
 * no owners, mode bits or O_NOFOLLOW), so what is started is the file checked (see `start`).
 */
function checkBinary(binary) {
  const refuse = (why) => fail(`refusing to run ${binary}: ${why}. ${REINSTALL}`);
  const found = fs.lstatSync(binary);
  if (found.isSymbolicLink()) refuse("it is a symbolic link, not the file npm installed");
  if (!found.isFile()) refuse("it is not a regular file");
  if (typeof process.getuid !== "function") return undefined;
  let fd;
  try {
    fd = fs.openSync(binary, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    if (error.code === "ELOOP") refuse("it is a symbolic link, not the file npm installed");
    throw error;
  }
  const opened = fs.fstatSync(fd);
  if (opened.ino !== found.ino || opened.dev !== found.dev) refuse("it changed while being checked");
  const uid = process.getuid();
  if (opened.uid !== uid && opened.uid !== 0) refuse(`it belongs to uid ${opened.uid}, not to you (uid ${uid}) or root`);
  // Some package managers unpack without the execute bit: given back on the descriptor, to the owner alone.
  if ((opened.mode & 0o100) === 0) fs.fchmodSync(fd, (opened.mode & 0o777) | 0o700);
  return fd;
}

/**
 * Starts the binary. Where /proc/self/fd exists (Linux), the child is handed the checked descriptor as its fd 3 and
 * executes /proc/self/fd/3: a file renamed into the binary's place after the checks (a link to another file, by
 * someone who can write that folder) is never what runs. argv[0] stays the binary's path. Elsewhere, by its path.
 */
function start(binary, fd) {
  const args = process.argv.slice(2);
  const child =
    fd !== undefined && fs.existsSync("/proc/self/fd")
      ? spawn("/proc/self/fd/3", args, { stdio: ["inherit", "inherit", "inherit", fd], argv0: binary })
      : spawn(binary, args, { stdio: "inherit" });
  if (fd !== undefined) fs.closeSync(fd);
  return child;
}

const binary = findBinary();
let checked;
try {
  checked = checkBinary(binary);
} catch (error) {
  fail(`cannot check ${binary}: ${error.message}`);
}
const child = start(binary, checked);
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
