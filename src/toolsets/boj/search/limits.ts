/** How many hits a page of boj_search_series holds: its own module, so the tool's description needs no schema built. */
export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 100;
