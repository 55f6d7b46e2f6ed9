/**
 * Values `bun build --define` writes into a release binary (`scripts/release/compile.ts`); from
 * source they are undeclared, so code reads them only through `typeof`.
 */

/** The native walk compiled ahead for this binary's target, base64 (`scripts/release/prebuilt-walk.ts`). */
declare const MCPKIT_PREBUILT_NATIVE_WALK: string | undefined;

/**
 * Every shipped tool's JSON Schemas, converted at build time: an object literal of "tool:mode" →
 * schema (`scripts/release/frozen-schemas.ts`; read by `src/core/json-schema.ts`).
 */
declare const MCPKIT_FROZEN_JSON_SCHEMAS: Record<string, { [key: string]: unknown }> | undefined;
