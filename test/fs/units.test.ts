/**
 * The pure parts of fs_search_by_time: date parsing and formatting, the total order and bounded
 * top-k, cursors, and the JSON Schemas against docs/contracts/fs-search-by-time.md.
 * (fast-glob semantics and glob limits: glob.test.ts; the walk: walk.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { convertToJsonSchema } from "../../src/core/json-schema.ts";
import * as program from "../../src/toolsets/fs/collector.ts";
import type { Position } from "../../src/toolsets/fs/collector.ts";
import { CURSOR_OTHER_QUERY, CURSOR_TAMPERED, CursorCodec, cursorKey } from "../../src/toolsets/fs/cursor.ts";
import { searchInput, searchOutput } from "../../src/toolsets/fs/schema.ts";
import { formatIso, parseDateTime } from "../../src/toolsets/fs/time.ts";

describe("dates", () => {
  test("ISO 8601 date-times with an offset parse to the right instant", () => {
    expect(parseDateTime("2025-12-15T00:00:00Z")).toBe(Date.UTC(2025, 11, 15));
    expect(parseDateTime("2025-12-15T09:00:00+09:00")).toBe(Date.UTC(2025, 11, 15));
    expect(parseDateTime("2025-12-14T19:00:00-0500")).toBe(Date.UTC(2025, 11, 15));
    expect(parseDateTime("2025-12-15 00:00:00.250Z")).toBe(Date.UTC(2025, 11, 15) + 250);
    expect(parseDateTime("2025-12-15T00:00:00.123456789Z")).toBe(Date.UTC(2025, 11, 15) + 123.456789);
    expect(parseDateTime("2024-02-29T00:00:00Z")).toBe(Date.UTC(2024, 1, 29));
  });

  test("years 0000–0099 parse to their own year, the offset applied after (not 1900–1999, nor a year off)", () => {
    expect(formatIso(parseDateTime("0050-01-01T00:00:00+01:00") as number)).toBe("0049-12-31T23:00:00Z");
    expect(formatIso(parseDateTime("0099-12-31T23:30:00-01:00") as number)).toBe("0100-01-01T00:30:00Z");
    // 0000 is a leap year (1900, which Date.UTC reads "00" as, is not).
    expect(formatIso(parseDateTime("0000-02-29T00:00:00Z") as number)).toBe("0000-02-29T00:00:00Z");
    expect(parseDateTime("1900-02-29T00:00:00Z")).toBeUndefined();
  });

  test("a file time outside years 0000–9999 is written as the nearest RFC 3339 instant, never a throw", () => {
    // tmpfs stores such times (ext4 stops at 2446): toISOString wrote "+020983-…", which a
    // client's output-schema check refuses, and threw past year 275,760, failing the whole search.
    expect(formatIso(6e14)).toBe("9999-12-31T23:59:59.999Z");
    expect(formatIso(1e16)).toBe("9999-12-31T23:59:59.999Z");
    expect(formatIso(-7e13)).toBe("0000-01-01T00:00:00Z");
    expect(formatIso(-1e16)).toBe("0000-01-01T00:00:00Z");
    expect(formatIso(253402300799000)).toBe("9999-12-31T23:59:59Z");
  });

  test("impossible days, missing offsets and free text are rejected", () => {
    for (const text of [
      "2025-02-30T00:00:00Z",
      "2025-02-29T00:00:00Z",
      "2025-13-01T00:00:00Z",
      "2025-12-15T24:00:00Z",
      "2025-12-15T00:00:00",
      "2025-12-15",
      "yesterday",
      "",
    ]) {
      expect(parseDateTime(text)).toBeUndefined();
    }
  });

  test("output is UTC ISO 8601, with milliseconds only when there are some", () => {
    expect(formatIso(Date.UTC(2025, 11, 1))).toBe("2025-12-01T00:00:00Z");
    expect(formatIso(Date.UTC(2025, 11, 1) + 5.9)).toBe("2025-12-01T00:00:00.005Z");
  });
});

describe("order and top-k", () => {
  const positions = fc.array(
    fc.record({
      time: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
      path: fc.stringMatching(/^[ab/]{1,4}$/),
    }),
    { maxLength: 40 },
  );
  const sorts = fc.constantFrom("time_desc", "time_asc", "path_asc" as const);

  test("the order is total: only identical positions compare equal, and it is transitive", () => {
    fc.assert(
      fc.property(positions, sorts, (items, sort) => {
        const compare = program.comparatorFor(sort);
        for (const a of items) {
          for (const b of items) {
            const same = sort === "path_asc" ? a.path === b.path : a.path === b.path && a.time === b.time;
            expect(compare(a, b) === 0).toBe(same);
            expect(Math.sign(compare(a, b)) + Math.sign(compare(b, a))).toBe(0);
          }
        }
        const sorted = [...items].sort(compare);
        for (let i = 1; i < sorted.length; i++) expect(compare(sorted[i - 1], sorted[i])).toBeLessThanOrEqual(0);
      }),
      { numRuns: 100 },
    );
  });

  test("unknown times come after every known time in both time orders", () => {
    for (const sort of ["time_desc", "time_asc"] as const) {
      const compare = program.comparatorFor(sort);
      expect(compare({ time: null, path: "a" }, { time: 1, path: "z" })).toBeGreaterThan(0);
      expect(compare({ time: 5, path: "z" }, { time: null, path: "a" })).toBeLessThan(0);
    }
  });

  test("TopK keeps exactly the first k items of the sorted stream and counts all offers", () => {
    fc.assert(
      fc.property(positions, fc.integer({ min: 1, max: 10 }), sorts, (items, k, sort) => {
        const compare = program.comparatorFor(sort);
        // Paths identify entries, so a real stream never holds one path twice.
        const unique = [...new Map(items.map((item) => [item.path, item])).values()];
        const top = new program.TopK<Position>(k, compare);
        for (const item of unique) top.offer(item);
        expect(top.offered).toBe(unique.length);
        expect(top.heap.length).toBe(Math.min(k, unique.length));
        expect([...top.heap].sort(compare)).toEqual([...unique].sort(compare).slice(0, k));
      }),
      { numRuns: 200 },
    );
  });
});

describe("names that are not UTF-8", () => {
  /** Entries already stat'ed, newest first: [name or undefined (not UTF-8), modified ms]. */
  function batchOf(entries: [string | undefined, number][]): program.StatedBatch {
    const fields = { time: 0 };
    const stat = {
      type: () => 8, // a regular file
      size: () => 1,
      mtimeMs: () => fields.time,
      birthtimeMs: () => 0,
      ctimeMs: () => 0,
    };
    return {
      count: entries.length,
      exactName: (index) => entries[index][0],
      hasExactName: (index) => entries[index][0] !== undefined,
      isDirectory: () => false,
      select(index) {
        fields.time = entries[index][1];
        return stat;
      },
    };
  }

  test("are all counted, whether or not they would have made the page, whatever the order", () => {
    for (const order of [
      [
        ["new.txt", 3_000],
        [undefined, 1_000],
      ],
      [
        [undefined, 1_000],
        ["new.txt", 3_000],
      ],
    ] as [string | undefined, number][][]) {
      const config = {
        timeField: "modified",
        from: null,
        to: null,
        includeUnknownTime: false,
        sort: "time_desc",
        limit: 1,
        resume: null,
      } as const;
      const collector = program.createCollector(config, { atPointer: () => false, byName: () => false } as never);
      collector.addStated(batchOf(order));
      const result = collector.result();
      expect({ order, undecodable: result.undecodableSkipped, offered: result.offered }).toEqual({
        order,
        undecodable: 1,
        offered: 1,
      });
    }
  });
});

describe("cursors", () => {
  const codec = new CursorCodec(cursorKey(undefined, false));
  const state = { position: { time: 1765000000000.25, path: "docs/a b.md" }, since: 1765000001000 };

  test("round-trip for the same query", () => {
    const cursor = codec.encode("q1", state);
    expect(codec.decode("q1", cursor)).toEqual({ ok: true, state });
    expect(codec.decode("q1", codec.encode("q1", { ...state, position: { time: null, path: "x" } }))).toEqual({
      ok: true,
      state: { ...state, position: { time: null, path: "x" } },
    });
  });

  test("another query, a modified cursor, garbage or another key are refused with a sentence", () => {
    const cursor = codec.encode("q1", state);
    expect(codec.decode("q2", cursor)).toEqual({ ok: false, message: CURSOR_OTHER_QUERY });
    const flipped = cursor.slice(0, 5) + (cursor[5] === "A" ? "B" : "A") + cursor.slice(6);
    for (const bad of [
      flipped,
      `${cursor}x`,
      cursor.slice(0, -2),
      "",
      ".",
      "not-a-cursor",
      `${cursor.split(".")[0]}.`,
    ]) {
      expect(codec.decode("q1", bad)).toEqual({ ok: false, message: CURSOR_TAMPERED });
    }
    const other = new CursorCodec(cursorKey(undefined, false));
    expect(other.decode("q1", cursor)).toEqual({ ok: false, message: CURSOR_TAMPERED });
  });

  test("keys: a shared secret and the stable `call` key are the same across instances; serve keys are random", () => {
    const a = new CursorCodec(cursorKey("a shared secret of 32 characters", false));
    const b = new CursorCodec(cursorKey("a shared secret of 32 characters", false));
    expect(b.decode("q", a.encode("q", state)).ok).toBe(true);
    const c1 = new CursorCodec(cursorKey(undefined, true));
    const c2 = new CursorCodec(cursorKey(undefined, true));
    expect(c2.decode("q", c1.encode("q", state)).ok).toBe(true);
    expect(Buffer.from(cursorKey(undefined, false)).equals(Buffer.from(cursorKey(undefined, false)))).toBe(false);
  });
});

describe("JSON Schemas match docs/contracts/fs-search-by-time.md", () => {
  const contract = readFileSync(join(import.meta.dir, "../../docs/contracts/fs-search-by-time.md"), "utf8");
  const blocks = [...contract.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);
  const seedInput = JSON.parse(
    blocks.find((b) => b.includes('"includeUnknownTime"') && b.includes('"required": ["timeField"]')) as string,
  );
  const seedOutput = JSON.parse(
    blocks.find((b) => b.includes('"scannedDirectories"') && b.includes('"nextCursor": {')) as string,
  );

  /** Drops what the contract leaves to the implementation: descriptions (ours are English) and $schema. */
  function shape(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map(shape);
    if (typeof schema !== "object" || schema === null) return schema;
    const object = schema as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(object).sort()) {
      if (key === "description" || key === "$schema") continue;
      out[key] = key === "required" ? [...(object[key] as string[])].sort() : shape(object[key]);
    }
    return out;
  }

  test("inputSchema: same properties, types, enums, defaults, bounds, formats and required", () => {
    const ours = convertToJsonSchema(searchInput, "input");
    expect(shape(ours)).toEqual(shape(seedInput));
  });

  test("every input property has a description a model can read", () => {
    const ours = convertToJsonSchema(searchInput, "input") as { properties: Record<string, { description?: string }> };
    expect(Object.keys(ours.properties)).toEqual(Object.keys(seedInput.properties));
    for (const [name, property] of Object.entries(ours.properties)) {
      expect([name, (property.description ?? "").length > 10]).toEqual([name, true]);
    }
  });

  test('outputSchema: same shape, nullable fields written as the seed writes them (type: [T, "null"])', () => {
    const ours = convertToJsonSchema(searchOutput, "output");
    expect(shape(ours)).toEqual(shape(seedOutput));
  });
});
