/**
 * The fake BOJ server itself behaves like the real API (docs/contracts/boj.md), so the other boj tests
 * exercise mcpkit against realistic answers: real message IDs with HTTP status = STATUS, errors in
 * JSON even for CSV, case-insensitive parameter names and values, a case-sensitive path.
 */
import { afterAll, expect, test } from "bun:test";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";

const fake = startFakeBoj();
afterAll(() => fake.stop());

async function get(
  path: string,
): Promise<{ status: number; type: string | null; body: Record<string, unknown> | string }> {
  const response = await fetch(`${fake.url}${path}`);
  const type = response.headers.get("content-type");
  return {
    status: response.status,
    type,
    body: type?.includes("json") ? ((await response.json()) as Record<string, unknown>) : await response.text(),
  };
}

test("each bad input gets BOJ's message ID, with the HTTP status mirroring STATUS", async () => {
  const cases: [string, string][] = [
    ["/api/v1/getDataCode?db=CO&code=A%3CB", "M181001E"],
    ["/api/v1/getDataCode?db=IR01&code=IR01'MADR1Z@D", "M181001E"],
    ["/api/v1/getDataCode?lang=fr&db=CO&code=A", "M181002E"],
    ["/api/v1/getDataCode?format=xml&db=CO&code=A", "M181003E"],
    ["/api/v1/getDataCode?code=A", "M181004E"],
    ["/api/v1/getDataCode?db=XX&code=A", "M181005E"],
    ["/api/v1/getDataCode?db=CO", "M181006E"],
    [`/api/v1/getDataCode?db=CO&code=${Array.from({ length: 1251 }, () => "A").join(",")}`, "M181007E"],
    ["/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000&startDate=202405", "M181008E"],
    ["/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000&endDate=202400", "M181009E"],
    ["/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000&startDate=184901", "M181010E"],
    ["/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000&startDate=202502&endDate=202401", "M181011E"],
    ["/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000&startPosition=0", "M181012E"],
    ["/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000,NOPE", "M181013E"],
    ["/api/v1/getDataCode?db=BP01&code=BPBP6JYNCB,BPBP6JYNCBQ", "M181014E"],
    ["/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000&startDate=2024", "M181015E"],
    ["/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000&endDate=2024", "M181016E"],
    ["/api/v1/getDataLayer?db=MD10&layer=1", "M181017E"],
    ["/api/v1/getDataLayer?db=MD10&frequency=MONTHLY&layer=1", "M181018E"],
    ["/api/v1/getDataLayer?db=MD10&frequency=Q", "M181019E"],
    ["/api/v1/getDataLayer?db=MD10&frequency=Q&layer=1,1,1,1,1,1", "M181019E"],
    ["/api/v1/getDataLayer?db=MD10&frequency=Q&layer=0", "M181020E"],
    ["/api/v1/getDataLayer?db=LA01&frequency=M&layer=*", "M181007E"],
  ];
  for (const [path, id] of cases) {
    const { status, body } = await get(path);
    expect({ path, status, id: (body as Record<string, unknown>).MESSAGEID }).toEqual({ path, status: 400, id });
    expect(Object.keys(body as object)).toEqual(["STATUS", "MESSAGEID", "MESSAGE", "DATE"]);
  }
  expect(
    ((await get("/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000,NOPE")).body as Record<string, unknown>).MESSAGE,
  ).toBe("指定した系列コードは存在しません。:2番目のコード");
});

test("parameter names and values are case-insensitive; errors come as JSON even for CSV; the path is case-sensitive", async () => {
  const upper = await get("/api/v1/getDataCode?DB=co&CODE=TK99F1000601GCQ01000&FORMAT=Json&LANG=en");
  expect(upper.status).toBe(200);
  expect((upper.body as Record<string, unknown>).PARAMETER).toMatchObject({ FORMAT: "JSON", LANG: "EN", DB: "co" });
  const csvError = await get("/api/v1/getDataCode?format=csv&db=NOPE&code=A");
  expect(csvError.type).toContain("application/json");
  expect(csvError.body).toMatchObject({ STATUS: 400, MESSAGEID: "M181005E" });
  const csv = await get("/api/v1/getDataCode?format=csv&lang=en&db=CO&code=TK99F1000601GCQ01000");
  expect(csv.type).toContain("text/csv");
  expect(csv.body).toContain("TK99F1000601GCQ01000,Diffusion index");
  expect(csv.body).toContain(",202504,null");
  expect((await get("/api/v1/getdatacode?db=CO&code=TK99F1000601GCQ01000")).status).toBe(404);
});
