/**
 * The few libc calls the descriptor-anchored walk uses through `bun:ffi` on Linux with glibc:
 * `openat` (open a child relative to its open parent, O_NOFOLLOW), `getdents64` (list through the
 * descriptor), `statx` (stat an entry relative to it) and `close` (Bun's `closeSync` costs about
 * 15 µs instead of 1 µs once a second thread runs, measured with the stat worker). All three have the same signature and
 * struct layout on every Linux architecture (unlike `struct stat`). Loaded once per thread;
 * undefined where unavailable (musl, macOS, Windows), and then callers use the `/proc/<pid>/fd`
 * paths or the path walk instead.
 */
export interface Libc {
  /** A NUL-terminated copy of `name` in a reused buffer, as a pointer for the calls below. */
  name(text: string): number;
  openat(directoryFd: number, name: number, flags: number): number;
  getdents64(fd: number, buffer: number, length: number): number;
  statx(directoryFd: number, name: number, flags: number, mask: number, buffer: number): number;
  close(fd: number): number;
  pointer(buffer: Uint8Array): number;
}

let loaded: Libc | null | undefined;

export function libc(): Libc | undefined {
  if (loaded !== undefined) return loaded ?? undefined;
  loaded = null;
  if (process.platform !== "linux") return undefined;
  try {
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      openat: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      getdents64: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
      statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
      close: { args: [FFIType.i32], returns: FFIType.i32 },
    });
    const nameBytes = new Uint8Array(4096 + 1);
    const namePointer = ptr(nameBytes);
    const encoder = new TextEncoder();
    loaded = {
      name(text) {
        const { written } = encoder.encodeInto(text, nameBytes.subarray(0, 4096));
        nameBytes[written] = 0;
        return namePointer;
      },
      openat: (directoryFd, name, flags) => symbols.openat(directoryFd, name as never, flags, 0),
      getdents64: (fd, buffer, length) => Number(symbols.getdents64(fd, buffer as never, length)),
      // The symbol itself, not a wrapper: it runs once per entry, mostly before the JIT has inlined anything.
      statx: symbols.statx as unknown as Libc["statx"],
      close: (fd) => symbols.close(fd),
      pointer: (buffer) => ptr(buffer),
    };
  } catch {
    loaded = null;
  }
  return loaded ?? undefined;
}
