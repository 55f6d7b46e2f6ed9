/**
 * Compiling the native walk's C (`native-walk.c`) with Bun's built-in TinyCC (`bun:ffi` `cc`), and
 * linking functions compiled on another thread (`native-thread.ts`). Kept apart from
 * `native-walk.ts` so the compiling thread loads nothing else.
 *
 * A release binary for Linux may embed the walk compiled ahead instead (`loadPrebuiltNativeWalk`),
 * faster to load and to run; TinyCC covers every other case. `cc` and `dlopen` read a file: the
 * source or library is copied to a fresh private directory and removed once read.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import source from "./native-walk.c" with { type: "text" };

/** The functions native-walk.c exports, as `native-walk.ts` calls them. */
export interface NativeSymbols {
  walk_start(...args: number[]): number;
  walk_drain(walk: number, timeoutMs: number): number;
  walk_finish(walk: number): void;
}

/** Their addresses, in `NAMES` order (to hand compiled code to another thread of this process). */
export type NativePointers = [number, number, number];

const NAMES = ["walk_start", "walk_drain", "walk_finish"] as const;

type Ffi = typeof import("bun:ffi");

/** Three symbols: each costs the compile a trampoline of its own. */
function signatures({ FFIType: { i32, u32, f64, ptr } }: Ffi) {
  return {
    walk_start: {
      args: [ptr, i32, i32, u32, i32, i32, i32, i32, i32, f64, f64, i32, f64, f64, i32, ptr],
      returns: ptr,
    },
    walk_drain: { args: [ptr, i32], returns: i32 },
    walk_finish: { args: [ptr], returns: "void" },
  } as const;
}

type Compiled = { symbols: NativeSymbols; pointers: NativePointers; library: unknown };

/** The three functions of a loaded library, and their addresses. */
function exported(library: { symbols: unknown }): Compiled {
  const symbols = library.symbols as NativeSymbols;
  const addresses = library.symbols as Record<string, { ptr: number }>;
  const pointers = NAMES.map((name) => addresses[name].ptr) as NativePointers;
  return { symbols, pointers, library };
}

/**
 * `load(path)` on `bytes` written to a file in `directory`, a fresh private one (`mkdtemp`, mode
 * 0700) made here unless given, removed once loaded; undefined when anything fails (no writable
 * temporary directory, out of descriptors, a library that does not load here).
 */
function loadFromPrivateFile(
  name: string,
  bytes: string | Uint8Array,
  load: (path: string) => Compiled,
  given?: string,
): Compiled | undefined {
  let directory = given;
  try {
    directory ??= mkdtempSync(join(tmpdir(), "mcpkit-walk-"));
    const file = join(directory, name);
    writeFileSync(file, bytes, { mode: 0o600 });
    return load(file);
  } catch {
    return undefined;
  } finally {
    try {
      if (directory) rmSync(directory, { recursive: true, force: true });
    } catch {
      // out of descriptors, say: a few kilobytes left in the temporary directory, never a failed search
    }
  }
}

/**
 * Compiles the walk here, or undefined when it cannot (no TinyCC, no writable temporary
 * directory, out of descriptors), in `directory` when given (see `loadFromPrivateFile`). The
 * code lives as long as the returned library is referenced.
 */
export function compileNativeWalk(directory?: string): Compiled | undefined {
  return loadFromPrivateFile(
    "native-walk.c",
    source,
    (file) => {
      const ffi = require("bun:ffi") as Ffi;
      return exported(ffi.cc({ source: file, symbols: signatures(ffi) }));
    },
    directory,
  );
}

/**
 * The walk the build compiled ahead (`scripts/release/prebuilt-walk.ts`), loaded, or undefined
 * when this binary has none or it does not load here (an older libc, a temporary directory
 * mounted noexec): TinyCC compiles it then.
 */
export function loadPrebuiltNativeWalk(): Compiled | undefined {
  if (typeof MCPKIT_PREBUILT_NATIVE_WALK !== "string") return undefined;
  const library = Buffer.from(MCPKIT_PREBUILT_NATIVE_WALK, "base64");
  return loadFromPrivateFile("native-walk.so", library, (file) => {
    const ffi = require("bun:ffi") as Ffi;
    return exported(ffi.dlopen(file, signatures(ffi)));
  });
}

/** Callable functions for code another thread compiled, which must outlive every call (about 0.1 ms). */
export function linkNativeWalk(pointers: NativePointers): NativeSymbols | undefined {
  try {
    const ffi = require("bun:ffi") as Ffi;
    const types = signatures(ffi);
    const linked = ffi.linkSymbols(
      Object.fromEntries(
        NAMES.map((name, index) => [
          name,
          { ...types[name], ptr: pointers[index] as unknown as import("bun:ffi").Pointer },
        ]),
      ),
    );
    return linked.symbols as unknown as NativeSymbols;
  } catch {
    return undefined;
  }
}

/** A typed array's address, for the walk's arguments. */
export function pointerOf(bytes: Uint8Array): number {
  return (require("bun:ffi") as Ffi).ptr(bytes);
}
