/** Helpers shared by the in-process fs tests. */
import { readdirSync, readlinkSync } from "node:fs";
import type { CollectorConfig } from "../../src/toolsets/fs/collector.ts";
import type { EntryBatch } from "../../src/toolsets/fs/listing.ts";
import type { NativeSearch } from "../../src/toolsets/fs/native-walk.ts";
import type { WalkRequest } from "../../src/toolsets/fs/walk.ts";

/**
 * How many descriptors this process holds open on `folder` or below (Linux). Not every descriptor:
 * the worker process runs other test files too, and closes their pipes whenever it gets to them (a
 * whole-process count once fell from 24 to 20 during a walk).
 */
export function descriptorsOn(folder: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(folder);
    } catch {
      return false; // closed since the listing
    }
  }).length;
}

/** Every name in a batch the walk accepted, decoded. */
export function namesOf(batch: EntryBatch): string[] {
  return Array.from({ length: batch.count }, (_, index) => batch.name(index));
}

/** A walk of the whole tree at `root`: files only, no glob, no depth limit, 30 s; `overrides` change any of it. */
export function walkRequest(root: string, overrides: Partial<WalkRequest> = {}): WalkRequest {
  return {
    root,
    start: "",
    maxDepth: Number.POSITIVE_INFINITY,
    maxDepthIsServerLimit: false,
    glob: undefined,
    includeFiles: true,
    includeDirectories: false,
    deadline: performance.now() + 30_000,
    signal: new AbortController().signal,
    accept: () => {},
    ...overrides,
  };
}

/** A collector's configuration: every entry by modified time, newest first, `limit` 10, unless overridden. */
export function collectorConfig(overrides: Partial<CollectorConfig> = {}): CollectorConfig {
  return {
    timeField: "modified",
    from: null,
    to: null,
    includeUnknownTime: false,
    sort: "time_desc",
    limit: 10,
    resume: null,
    ...overrides,
  };
}

/** A native walk whose finds go nowhere. */
export const quietSearch: NativeSearch = {
  ranking: { acceptStated() {}, keptBound: () => undefined, addBehind() {} },
  startPrefix: "",
  timeField: "modified",
  from: null,
  to: null,
  oldestFirst: false,
  scannedBefore: 0,
  pagingSince: null,
};
