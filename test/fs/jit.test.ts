/**
 * The per-entry loops of a search stay below JavaScriptCore's FTL tier (`src/toolsets/fs/jit.ts`):
 * in a one-shot search FTL compiles cost more CPU than they save. The hint is applied when the
 * modules load; this holds it to the loops it names.
 */
import { expect, test } from "bun:test";
import "../../src/toolsets/fs/collector.ts";
import "../../src/toolsets/fs/directories.ts";
import "../../src/toolsets/fs/entry-stat.ts";
import "../../src/toolsets/fs/parcel.ts";
import "../../src/toolsets/fs/walk.ts";
import { belowFtlNames } from "../../src/toolsets/fs/jit.ts";

const hasNoFtl = typeof (require("bun:jsc") as { noFTL?: unknown }).noFTL === "function";
if (!hasNoFtl) console.log("jit: this Bun has no bun:jsc noFTL, so the loops tier up as usual; skipped");

test.skipIf(!hasNoFtl)(
  "the collector's loops, the getdents64 parse, the chunk sort, the parcel copy and the native walk's record reads stay below FTL",
  () => {
    expect(belowFtlNames().sort()).toEqual([
      "add",
      "addRaw",
      "consider",
      "next",
      "qualifyingTime",
      "sortChunk",
      "time",
      "type",
      "typeOfMode",
    ]);
  },
);
