/**
 * MCP requires a request's progress value to increase with each notification. A walk reports its
 * scanned count every 100 ms, and repeats it when nothing new was scanned in between: the native
 * walk still draining and ranking what its threads found after they are done, or the count at a
 * hand-over from the JavaScript walk. On a busy machine such a pause outlasts 100 ms.
 */

/** `report`, called only with counts above every count it was called with before. */
export function risingProgress(report: (scanned: number) => void): (scanned: number) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (scanned) => {
    if (scanned <= last) return;
    last = scanned;
    report(scanned);
  };
}
