/**
 * Compiling the native walk's C (`native-walk.c`) with Bun's built-in TinyCC (`bun:ffi` `cc`), and
 * linking functions compiled on another thread (`native-thread.ts`). Kept apart from
 * `native-walk.ts` so the compiling thread loads nothing else.
 *
 * A release binary for Linux may embed the walk compiled ahead instead (`loadPrebuiltNativeWalk`),
 * faster to load and to run; TinyCC covers every other case.
 */
import { closeSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { lazy } from "../../core/lazy.ts";
import source from "./native-walk.c" with { type: "text" };
import { makePrivateDirectory } from "./private-directory.ts";

/** The functions native-walk.c exports, as `native-walk.ts` calls them. */
export interface NativeSymbols {
  /** Addresses of the starts (`encodeStarts`), the settings (`encodeSettings`) and the counts and record area. */
  walk_start(items: number, settings: number, shared: number): number;
  walk_drain(walk: number, timeoutMs: number): number;
  walk_finish(walk: number): void;
}

/** Their addresses, in `NAMES` order (to hand compiled code to another thread of this process). */
export type NativePointers = [number, number, number];

const NAMES = ["walk_start", "walk_drain", "walk_finish"] as const;

type Ffi = typeof import("bun:ffi");

/** Three symbols: each costs the compile a trampoline of its own. */
function signatures({ FFIType: { i32, ptr } }: Ffi) {
  return {
    walk_start: { args: [ptr, ptr, ptr], returns: ptr },
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
 * Compiles the walk here, or undefined when it cannot (no TinyCC, no temporary directory private
 * enough: `private-directory.ts`, out of descriptors). `cc` reads a file: the source is written to
 * `given` (a fresh private directory) or one made here, removed once compiled. The code lives as
 * long as the returned library is referenced.
 */
export function compileNativeWalk(given?: string): Compiled | undefined {
  const directory = given ?? makePrivateDirectory("mcpkit-walk-");
  if (!directory) return undefined;
  try {
    const ffi = require("bun:ffi") as Ffi;
    const file = join(directory, "native-walk.c");
    writeFileSync(file, source, { mode: 0o600 });
    return exported(ffi.cc({ source: file, symbols: signatures(ffi) }));
  } catch {
    return undefined;
  } finally {
    try {
      rmSync(directory, { recursive: true, force: true });
    } catch {
      // out of descriptors, say: a few kilobytes left in the temporary directory, never a failed search
    }
  }
}

/** `memfd_create` flag: the descriptor is not inherited by programs this process runs. */
const MFD_CLOEXEC = 1;

/**
 * The walk the build compiled ahead (`scripts/release/prebuilt-walk.ts`), loaded from memory, or
 * undefined when this binary has none or it does not load here (an older libc; no memfd or /proc):
 * TinyCC compiles it then. The library goes into a memfd and `dlopen` reads it through
 * /proc/self/fd: no file another user could swap, no temporary directory mounted noexec, nothing
 * left behind however the process ends.
 */
export function loadPrebuiltNativeWalk(): Compiled | undefined {
  if (typeof MCPKIT_PREBUILT_NATIVE_WALK !== "string") return undefined;
  let fd = -1;
  try {
    const ffi = require("bun:ffi") as Ffi;
    const { symbols: libc } = ffi.dlopen("libc.so.6", {
      memfd_create: { args: [ffi.FFIType.cstring, ffi.FFIType.u32], returns: ffi.FFIType.i32 },
    });
    fd = libc.memfd_create(Buffer.from("mcpkit-native-walk\0"), MFD_CLOEXEC);
    if (fd < 0) return undefined;
    const library = Buffer.from(MCPKIT_PREBUILT_NATIVE_WALK, "base64");
    if (writeSync(fd, library) !== library.length) return undefined;
    return exported(ffi.dlopen(`/proc/self/fd/${fd}`, signatures(ffi)));
  } catch {
    return undefined;
  } finally {
    if (fd >= 0) closeSync(fd); // the mapped library stays
  }
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

/** bun:ffi, kept once a walk first needs an address (a `require` per use looks it up again). */
const ffiModule = lazy(() => require("bun:ffi") as Ffi);

/** A typed array's address, for the walk's arguments. */
export function pointerOf(bytes: Uint8Array): number {
  return ffiModule.get().ptr(bytes);
}
