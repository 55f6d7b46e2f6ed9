/**
 * Values `bun build --define` writes into a release binary (`scripts/release/compile.ts`); from
 * source they are undeclared, so code reads them only through `typeof`.
 */

/** The native walk compiled ahead for this binary's target, base64 (`scripts/release/prebuilt-walk.ts`). */
declare const MCPKIT_PREBUILT_NATIVE_WALK: string | undefined;
