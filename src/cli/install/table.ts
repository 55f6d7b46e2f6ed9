/** A parsed config's objects, as the edits (edit*.ts), the diff view (mask.ts) and the secret rules (secrets.ts) see them. */

export type Table = Record<string, unknown>;

export function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object at `keys` in `doc`, or undefined where one of them is missing or not an object. */
export function valueAt(doc: Table, keys: string[]): Table | undefined {
  let value: unknown = doc;
  for (const key of keys) value = isTable(value) ? value[key] : undefined;
  return isTable(value) ? value : undefined;
}

/**
 * `doc` without `name` in each servers object at one of the paths `at`, and without a servers object that held it
 * alone: what an edit must leave as it was.
 */
export function withoutEntry(doc: Table, at: string[][], name: string): Table {
  const rest = structuredClone(doc);
  for (const keys of at) {
    const servers = valueAt(rest, keys);
    if (servers === undefined) continue;
    delete servers[name];
    const parent = valueAt(rest, keys.slice(0, -1));
    if (Object.keys(servers).length === 0 && parent) delete parent[keys[keys.length - 1]];
  }
  return rest;
}
