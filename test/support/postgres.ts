/**
 * A throwaway Debian PostgreSQL cluster for tests: a copy of one initdb's cluster in a temporary
 * directory, listening on a free loopback port only, trust authentication, no fsync. A normal user runs the cluster as
 * itself; root (whom initdb refuses) runs it as the `postgres` user through `runuser`. Tests skip
 * with one line when the package is absent or neither way works here.
 */
import { type Stats, chownSync, lstatSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeLoopbackPort } from "./ports.ts";

const initdb = [...new Bun.Glob("/usr/lib/postgresql/*/bin/initdb").scanSync()][0];
const bin = initdb ? initdb.replace(/\/initdb$/, "") : "";

const isRoot = process.getuid?.() === 0;

/** Root's way to run the cluster: the `postgres` account and `runuser`; undefined when either is missing. */
function postgresAccount(): { uid: number; gid: number } | undefined {
  const id = (flag: string) => Bun.spawnSync(["id", flag, "postgres"], { stderr: "ignore" });
  const [uid, gid] = [id("-u"), id("-g")];
  if (uid.exitCode !== 0 || gid.exitCode !== 0 || !Bun.which("runuser")) return undefined;
  return { uid: Number(uid.stdout.toString().trim()), gid: Number(gid.stdout.toString().trim()) };
}

/** Whether a cluster can be started here; prints one SKIPPED line saying why when not. */
export function hasPostgres(needed: string): boolean {
  if (!initdb) {
    console.error(
      `SKIPPED ${needed}: PostgreSQL is not installed (apt-get install -y postgresql; .ci/run installs it)`,
    );
    return false;
  }
  if (isRoot && !postgresAccount()) {
    console.error(
      `SKIPPED ${needed}: running as root, and initdb refuses root; there is no postgres account with runuser to run it as`,
    );
    return false;
  }
  return true;
}

export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  stop(): void;
}

/** Runs a PostgreSQL program as the cluster's owner: this user, or `postgres` when this is root. */
function asOwner(args: string[]): void {
  const command = isRoot ? ["runuser", "-u", "postgres", "--", ...args] : args;
  const result = Bun.spawnSync(command, { stderr: "pipe", stdout: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${args[0]} failed: ${result.stderr.toString()}`);
}

/**
 * A fresh cluster's data directory, made by initdb once per user and PostgreSQL version and then
 * copied: initdb takes 1–5 s, a copy a tenth of that, and several test files start a cluster.
 * Workers racing to make it each make their own and rename it into place; the first wins.
 */
function template(owner: { uid: number; gid: number } | undefined): string {
  const path = join(tmpdir(), `mcpkit-pg-template-${process.getuid?.() ?? 0}-${bin.split("/").at(-2)}`);
  const existing = lstatOrUndefined(path);
  if (existing?.isDirectory() && existing.uid === (owner?.uid ?? process.getuid?.())) return path;
  if (existing) throw new Error(`${path} is not a PostgreSQL template made by this user: remove it`);
  const making = mkdtempSync(`${path}-making-`);
  if (owner) chownSync(making, owner.uid, owner.gid);
  asOwner([`${bin}/initdb`, "-D", join(making, "data"), "-A", "trust", "-U", "postgres", "--no-sync"]);
  try {
    renameSync(join(making, "data"), path);
  } catch {
    // Another worker's rename came first: use that one.
  }
  rmSync(making, { recursive: true, force: true });
  return path;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

export function startPostgres(): TestPostgres {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-pg-"));
  const port = freeLoopbackPort();
  const account = isRoot ? postgresAccount() : undefined;
  if (account) chownSync(dir, account.uid, account.gid);
  const data = join(dir, "data");
  // cp -a keeps the owner and the 0700 mode the server insists on.
  asOwner(["cp", "-a", template(account), data]);
  const options = `-k ${dir} -p ${port} -h 127.0.0.1 -c fsync=off`;
  asOwner([`${bin}/pg_ctl`, "-D", data, "-l", join(dir, "log"), "-o", options, "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        asOwner([`${bin}/pg_ctl`, "-D", data, "-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
