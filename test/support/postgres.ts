/**
 * A throwaway Debian PostgreSQL cluster for tests: initdb in a temporary directory, listening on
 * a free loopback port only, trust authentication, no fsync. Runs the server as the `postgres`
 * user (initdb refuses root). Tests skip when the package is absent, with one line naming it.
 */
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeLoopbackPort } from "./ports.ts";

const initdb = [...new Bun.Glob("/usr/lib/postgresql/*/bin/initdb").scanSync()][0];
const bin = initdb ? initdb.replace(/\/initdb$/, "") : "";

/** Whether a cluster can be started here; prints one SKIPPED line naming the package when not. */
export function hasPostgres(needed: string): boolean {
  if (!initdb)
    console.error(
      `SKIPPED ${needed}: PostgreSQL is not installed (apt-get install -y postgresql; .ci/run installs it)`,
    );
  return Boolean(initdb);
}

export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  stop(): void;
}

function asPostgres(args: string[]): void {
  const result = Bun.spawnSync(["runuser", "-u", "postgres", "--", ...args], { stderr: "pipe", stdout: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${args[0]} failed: ${result.stderr.toString()}`);
}

export function startPostgres(): TestPostgres {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-pg-"));
  const port = freeLoopbackPort();
  const id = (flag: string) => Number(Bun.spawnSync(["id", flag, "postgres"]).stdout.toString().trim());
  chownSync(dir, id("-u"), id("-g"));
  const data = join(dir, "data");
  asPostgres([`${bin}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-k ${dir} -p ${port} -h 127.0.0.1 -c fsync=off`;
  asPostgres([`${bin}/pg_ctl`, "-D", data, "-l", join(dir, "log"), "-o", options, "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        asPostgres([`${bin}/pg_ctl`, "-D", data, "-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
