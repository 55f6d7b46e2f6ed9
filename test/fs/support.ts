/** Helpers shared by the in-process fs tests. */
import type { EntryBatch } from "../../src/toolsets/fs/listing.ts";

/** Every name in a batch the walk accepted, decoded. */
export function namesOf(batch: EntryBatch): string[] {
  return Array.from({ length: batch.count }, (_, index) => batch.name(index));
}
