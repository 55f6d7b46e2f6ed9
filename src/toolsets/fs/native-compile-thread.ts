/**
 * The thread that compiles the native walk while a one-shot search starts (`native-thread.ts`):
 * it compiles once, publishes the functions' addresses and its state in shared memory, and then
 * idles for the process's life, since the compiled code is its memory.
 */
import { jitAtNormalPace } from "../../core/jit-policy.ts";
import { compileNativeWalk } from "./native-compile.ts";
import { COMPILED, COMPILE_FAILED, type NativeThreadMessage, STATE } from "./native-thread.ts";

declare const self: Worker;

// A worker's VM starts at the binary's start-up JIT scale; TinyCC's compile runs here once, but
// what it calls back into JavaScript is not start-up code.
jitAtNormalPace();

let keep: unknown;

self.onmessage = ({ data }: MessageEvent<NativeThreadMessage>) => {
  const state = new Int32Array(data.state);
  const compiled = compileNativeWalk(data.directory);
  if (compiled) {
    keep = compiled.library;
    new Float64Array(data.pointers).set(compiled.pointers);
  }
  Atomics.store(state, STATE, compiled && keep ? COMPILED : COMPILE_FAILED);
  Atomics.notify(state, STATE);
};
