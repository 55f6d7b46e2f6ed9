/**
 * Compiling the native walk's C (`native-walk.c`) with Bun's built-in TinyCC (`bun:ffi` `cc`), and
 * linking functions compiled on another thread (`native-thread.ts`). Kept apart from
 * `native-walk.ts` so the compiling thread loads nothing else.
 *
 * `cc` reads a file: the source is copied to a fresh private directory (`mkdtemp`, mode 0700) and
 * removed at once. A prebuilt library could not ship inside one binary for every platform.
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

/**
 * Compiles the walk here, or undefined when it cannot (no TinyCC, no writable temporary
 * directory, out of descriptors), in `given` (a fresh private directory) or one made here; the
 * directory is removed once compiled. The code lives as long as the returned library is referenced.
 */
export function compileNativeWalk(
  given?: string,
): { symbols: NativeSymbols; pointers: NativePointers; library: unknown } | undefined {
  let directory = given;
  try {
    const ffi = require("bun:ffi") as Ffi;
    directory ??= mkdtempSync(join(tmpdir(), "mcpkit-walk-"));
    const file = join(directory, "native-walk.c");
    writeFileSync(file, source, { mode: 0o600 });
    const library = ffi.cc({ source: file, symbols: signatures(ffi) });
    const symbols = library.symbols as unknown as NativeSymbols;
    const addresses = library.symbols as unknown as Record<string, { ptr: number }>;
    const pointers = NAMES.map((name) => addresses[name].ptr) as NativePointers;
    return { symbols, pointers, library };
  } catch {
    return undefined;
  } finally {
    try {
      if (directory) rmSync(directory, { recursive: true, force: true });
    } catch {
      // out of descriptors, say: a few hundred bytes left in the temporary directory, never a failed search
    }
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

/** A typed array's address, for the walk's arguments. */
export function pointerOf(bytes: Uint8Array): number {
  return (require("bun:ffi") as Ffi).ptr(bytes);
}
