/** SHA-256 of release files, and SHA256SUMS in the format `sha256sum -c` reads. */
import { basename } from "node:path";

export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  // Stream: release archives are tens of megabytes each.
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/** One "<hex>  <file name>" line per file (two spaces: text mode), sorted by name, newline-terminated. */
export function sha256sums(entries: { file: string; sha256: string }[]): string {
  return [...entries]
    .sort((a, b) => basename(a.file).localeCompare(basename(b.file)))
    .map(({ file, sha256 }) => `${sha256}  ${basename(file)}\n`)
    .join("");
}
