/** Writing a client's config safely: one writer at a time (a lock file), a backup, and an atomic rename. */
import fs from "node:fs";
import path from "node:path";

export class WriteRefused extends Error {}

const LOCK_WAIT_MS = 10_000;
const STALE_LOCK_MS = 30_000;

/** Runs `work` while holding `<file>.lock`, created with O_EXCL so a second mcpkit waits instead of racing. */
export function withLock<T>(file: string, work: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let told = false;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, "wx", 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // A lock left by a killed run would block every later one; past this age nobody still holds it.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) fs.rmSync(lock, { force: true });
      else if (Date.now() > deadline)
        throw new WriteRefused(`${lock} is held by another mcpkit install; remove it if none is running`);
      else {
        if (!told) process.stderr.write(`mcpkit: waiting for ${lock}: another mcpkit install is writing this file\n`);
        told = true;
        Bun.sleepSync(20);
      }
    }
  }
  try {
    return work();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

export function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The file changed between reading and renaming (another program wrote it); the caller starts over. */
export class ChangedMeanwhile extends WriteRefused {
  constructor(file: string) {
    super(`${file} kept changing while mcpkit edited it; close the program writing it and run again`);
  }
}

/**
 * Replaces `file` with `text`: a backup to `<file>.bak` with the file's mode (a byte copy; `backup` instead when
 * given, none when null: see edit.ts `Edit.backup`), temp file in the same directory, then rename, unless the file
 * no longer holds `before` (what the edit was computed from).
 */
export function writeAtomically(file: string, text: string, before: string | undefined, backup?: string | null): void {
  const dir = path.dirname(file);
  let mode = 0o600;
  if (before !== undefined) {
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch {
      throw new WriteRefused(`${file} is read-only; make it writable (chmod u+w) and run again`);
    }
    mode = fs.statSync(file).mode & 0o777;
    // A new file (O_EXCL): an old backup (which may hold an old token), or a link in its place, is not written through.
    const bak = `${file}.bak`;
    fs.rmSync(bak, { force: true });
    if (backup === undefined) fs.copyFileSync(file, bak, fs.constants.COPYFILE_EXCL);
    else if (backup !== null) fs.writeFileSync(bak, backup, { mode, flag: "wx" });
    if (backup !== null) fs.chmodSync(bak, mode);
  } else fs.mkdirSync(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temp, text, { mode });
    fs.chmodSync(temp, mode);
    if (readText(file) !== before) throw new ChangedMeanwhile(file);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
