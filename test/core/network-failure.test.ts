/**
 * One wording for upstream network failures (issue 19): the cause and the flag to check, and a
 * host name that does not resolve is not retried (asking again cannot help). Checked without
 * connecting anywhere: DNS failures are not provoked from tests.
 */
import { describe, expect, test } from "bun:test";
import { isNameNotFound, networkFailure } from "../../src/core/network-failure.ts";
import { type BojError, isRetryable, transportError } from "../../src/toolsets/boj/errors.ts";

describe("network failures", () => {
  test("each cause names the flag the toolset passes", () => {
    expect(networkFailure("ENOTFOUND", "check --boj-base-url (BOJ_BASE_URL)")).toEqual([
      "host name not found",
      "check --boj-base-url (BOJ_BASE_URL) and the network's DNS",
    ]);
    expect(networkFailure("ECONNREFUSED", "check --oj-base-url (OJ_BASE_URL)")[1]).toContain("--oj-base-url");
    expect(networkFailure("CERT_HAS_EXPIRED", "x")[0]).toBe("TLS failed: CERT_HAS_EXPIRED");
  });

  test("a name that does not resolve is final for the BOJ retry policy; a refused connection is retried", () => {
    expect(isNameNotFound("ENOTFOUND")).toBe(true);
    expect(isNameNotFound("ECONNREFUSED")).toBe(false);
    const refused = transportError("refused");
    expect(isRetryable(refused)).toBe(true);
    const unresolved: BojError = transportError("no such host");
    unresolved.final = true;
    expect(isRetryable(unresolved)).toBe(false);
  });
});
