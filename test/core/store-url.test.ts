/**
 * A SQL store's URL in messages and logs (`--state`, `--boj-shared-state`): the password is
 * hidden in every form a message could carry it, including as written with characters the URL
 * parser percent-encodes (the start-up error printed such a password whole).
 */
import { describe, expect, test } from "bun:test";
import { describeStoreUrl, scrubStoreSecrets, storeUrlSecrets } from "../../src/core/store-url.ts";

describe("describeStoreUrl", () => {
  test.each([
    ["postgres://mcpkit:Pg^Secret|pw@127.0.0.1:9/mcpkit", "postgres://mcpkit:***@127.0.0.1:9/mcpkit"],
    ["postgresql://u:a%40b@db:5432/x?sslmode=require", "postgresql://u:***@db:5432/x"],
    ["postgres://u@db/x", "postgres://u@db/x"],
    ["sqlite:/var/lib/mcpkit/state.db", "sqlite:/var/lib/mcpkit/state.db"],
    // The parser refuses it: nothing of it is repeated.
    ["postgres://u:pa/ss@db/x", "postgres://…"],
    // The parser reads part of the password as a port and the rest as a path: nothing is repeated either.
    ["postgres://mcpkit:1234/secret@db:5432/mcpkit", "postgres://…"],
    ["postgres://mcpkit:55?x@db/x", "postgres://…"],
  ])("%s → %s", (url, shown) => {
    expect(describeStoreUrl(url)).toBe(shown);
  });
});

describe("storeUrlSecrets and scrubStoreSecrets", () => {
  test.each([
    ["Pg^Secret|pw", ["Pg^Secret|pw", "Pg%5ESecret%7Cpw"]],
    ["a%40b", ["a%40b", "a@b"]],
    ["pa/ss", ["pa/ss"]],
    ['q"\\x', ['q"\\x', 'q\\"\\\\x', "q%22%5Cx"]],
  ])("the password %p in every form a message may hold", (password, forms) => {
    const url = `postgres://mcpkit:${password}@db:5432/mcpkit`;
    const secrets = storeUrlSecrets(url);
    for (const form of forms) expect(secrets).toContain(form);
    const message = `connect ${url} failed; password ${forms.join(" or ")}; as JSON ${JSON.stringify(forms)}`;
    const scrubbed = scrubStoreSecrets(url, message);
    for (const form of forms) expect(scrubbed).not.toContain(form);
    expect(scrubbed).toContain("connect postgres://mcpkit:***@db:5432/mcpkit failed");
  });

  test("no password, or no Postgres URL: nothing to hide", () => {
    expect(storeUrlSecrets("postgres://u@db/x")).toEqual([]);
    expect(storeUrlSecrets("sqlite:/tmp/x:y@z")).toEqual([]);
    expect(scrubStoreSecrets("sqlite:/tmp/x", "sqlite:/tmp/x is locked")).toBe("sqlite:/tmp/x is locked");
  });
});
