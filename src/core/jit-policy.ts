/**
 * How eagerly JavaScriptCore compiles, from start-up to steady state. A release binary starts
 * with its tier-up thresholds scaled by STARTUP_JIT_POLICY (`--compile-jit-policy`,
 * scripts/release/compile.ts): the code of a start (module bodies, option parsing, building the
 * toolsets, the first `initialize` and `tools/list`) runs once, and compiling it cost more than
 * interpreting it: a stdio start to `server/discover` + `tools/list` took 17.3 ms of CPU at the
 * normal policy, 12.5–13.3 ms at 20 (`bun scripts/bench/startup.ts --era modern --baseline`).
 *
 * Work that repeats gets the normal policy back (`jitAtNormalPace`): the first tool call (on any
 * transport, and `mcpkit call`), an HTTP server once it listens, and every worker thread, whose
 * VM would otherwise start at the binary's scale too. `Bun.unsafe.setJITPolicy` is Bun's; under
 * `bun src/main.ts` the policy is already 1 and the call changes nothing.
 */

/** The scale a release binary starts with; see the top. */
export const STARTUP_JIT_POLICY = 20;

let normal = false;

/** This thread's VM compiles as usual from now on (the first call only; later ones cost a comparison). */
export function jitAtNormalPace(): void {
  if (normal) return;
  normal = true;
  // A Bun without it (the sources under an older 1.4) runs at the normal pace anyway.
  if (typeof Bun.unsafe.setJITPolicy === "function") Bun.unsafe.setJITPolicy(1);
}
