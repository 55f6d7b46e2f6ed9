/**
 * `bun run build`: dist/mcpkit for this machine, compiled exactly as a release is
 * (`scripts/release/compile.ts` owns the flags and the extra entry points).
 */
import { join } from "node:path";
import { compile } from "./release/compile.ts";

const root = join(import.meta.dir, "..");
// bun build adds ".exe" on Windows itself.
const outfile = join("dist", "mcpkit");
const { prebuiltBy, notPrebuilt } = await compile({ entry: "src/main.ts", outfile, cwd: root });
console.log(`built ${outfile} (${prebuiltBy ? `native walk prebuilt by ${prebuiltBy}` : notPrebuilt})`);
