/** A unified diff of one hunk: the changed span between the common head and tail, with three lines of context. */
export function unifiedDiff(file: string, before: string, after: string): string {
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after.replace(/\n$/, "").split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const start = Math.max(0, head - 3);
  const endA = Math.min(a.length, a.length - tail + 3);
  const endB = Math.min(b.length, b.length - tail + 3);
  const lines = [`--- ${file}`, `+++ ${file}`];
  lines.push(
    `@@ -${start + (endA > start ? 1 : 0)},${endA - start} +${start + (endB > start ? 1 : 0)},${endB - start} @@`,
  );
  for (let i = start; i < head; i++) lines.push(` ${a[i]}`);
  for (let i = head; i < a.length - tail; i++) lines.push(`-${a[i]}`);
  for (let i = head; i < b.length - tail; i++) lines.push(`+${b[i]}`);
  for (let i = a.length - tail; i < endA; i++) lines.push(` ${a[i]}`);
  return `${lines.join("\n")}\n`;
}
