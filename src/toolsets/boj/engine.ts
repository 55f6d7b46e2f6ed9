/**
 * What answers the boj tools' calls: the BOJ client, the answer cache and the series search.
 * Required by toolset.ts at the first call, not when the toolset is built, so a server lists the
 * tools without loading them (test/stdio/startup-imports.test.ts).
 */
export { BojAnswers } from "./answers.ts";
export { MemoryAnswerCache } from "./cache.ts";
export { BojClient } from "./client.ts";
export { createSearch } from "./search/index.ts";
