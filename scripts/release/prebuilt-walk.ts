/**
 * The native walk's C (`src/toolsets/fs/native-walk.c`) compiled ahead of time for a Linux
 * release, to be embedded in the binary (`compile.ts` passes it as the `MCPKIT_PREBUILT_NATIVE_WALK`
 * define; `native-compile.ts` loads it). It spares a one-shot search the thread that compiles the C
 * with TinyCC at run time, and runs optimised code: `scripts/bench/fs-search.ts` times both.
 *
 * Built with the machine's C compiler when it compiles for the target (`cc` for the host's own
 * target, else a Debian cross compiler such as `aarch64-linux-gnu-gcc`); without one the binary
 * compiles the C at run time as before, which `compile.ts` says. Linked against libc as usual: its
 * symbol versions pick the current pthread functions (a library linked without libc binds to the
 * oldest, glibc's compatibility condition variables, and every walk_start failed), and a libc older
 * than they need (glibc 2.34) refuses the load, so that machine compiles with TinyCC instead. `-z now`
 * makes any missing symbol fail the load rather than a later call.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostTarget, type TargetName } from "./compile.ts";

/** ELF e_machine of each Linux target, to refuse a library a compiler built for another machine. */
const MACHINES: Partial<Record<TargetName, { machine: number; arch: string; cross: string }>> = {
  "linux-x64": { machine: 62, arch: "x64", cross: "x86_64-linux-gnu-gcc" },
  "linux-arm64": { machine: 183, arch: "arm64", cross: "aarch64-linux-gnu-gcc" },
};

export const PREBUILT_FLAGS = ["-O2", "-fPIC", "-shared", "-Wl,-z,now", "-s", "-Wall"] as const;

export type Prebuilt = { library: Uint8Array; compiler: string } | { reason: string };

/** The C compiler that builds for `target` here, if any. */
export function compilerFor(target: TargetName): string | undefined {
  const wanted = MACHINES[target];
  if (!wanted) return undefined;
  // The PATH as it is now (Bun.which alone reads the one the process started with).
  const options = { PATH: process.env.PATH ?? "" };
  if (process.platform === "linux" && process.arch === wanted.arch)
    return Bun.which("cc", options) ?? Bun.which("gcc", options) ?? undefined;
  return Bun.which(wanted.cross, options) ?? undefined;
}

/** Compiles the walk for `target` (the host when omitted), or says why it is not prebuilt. */
export function prebuildNativeWalk(root: string, target: TargetName | undefined): Prebuilt {
  const name = target ?? hostTarget();
  if (!name || !MACHINES[name])
    return { reason: `the native walk is Linux-only: none for ${name ?? `${process.platform}-${process.arch}`}` };
  const compiler = compilerFor(name);
  if (!compiler)
    return {
      reason: `no C compiler for ${name} here (apt-get install gcc): the binary compiles its native walk at run time`,
    };
  const directory = mkdtempSync(join(tmpdir(), "mcpkit-prebuild-"));
  try {
    const output = join(directory, "native-walk.so");
    const source = join(root, "src/toolsets/fs/native-walk.c");
    const child = Bun.spawnSync([compiler, ...PREBUILT_FLAGS, "-o", output, source], { stderr: "pipe" });
    if (child.exitCode !== 0) return { reason: `${compiler} failed: ${child.stderr.toString().slice(0, 500)}` };
    const library = new Uint8Array(readFileSync(output));
    const machine = library[18] | (library[19] << 8);
    if (machine !== MACHINES[name]?.machine)
      return { reason: `${compiler} built for ELF machine ${machine}, not ${name}: the binary compiles at run time` };
    return { library, compiler };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
