/**
 * A value made at its first use: what a toolset builds only when one of its tools is called, so
 * its code is required then and not at a server's start-up (test/stdio/startup-imports.test.ts).
 * `ifMade` lets a toolset's `close` leave alone what was never made.
 */
export interface Lazy<T> {
  get: () => T;
  ifMade: () => T | undefined;
}

export function lazy<T>(make: () => T): Lazy<T> {
  let made: { value: T } | undefined;
  return {
    get: () => {
      made ??= { value: make() };
      return made.value;
    },
    ifMade: () => made?.value,
  };
}
