/**
 * A stdio peer that controls its own reading: `mcpkit` (the real process) on node:child_process
 * pipes, whose stdin reports backpressure (`write` → false, `drain`) and whose stdout the test can
 * leave unread, to see what the server does when its client stops reading. Lines and stderr are
 * collected as they arrive; the server's memory comes from /proc/<pid>/status.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { REPO_ROOT, mcpkitCommand, testEnv } from "../support/mcp.ts";

export type Json = Record<string, any>;

export interface Peer {
  child: ChildProcessWithoutNullStreams;
  /** Writes bytes; resolves at once, or at `drain` when the pipe pushed back. */
  write(bytes: string): Promise<void>;
  /** Resolves while a write waits for `drain` (at once if one does now). */
  writeBlocked(): Promise<void>;
  /** Every stdout line read so far, parsed (a line that is not JSON fails the test where it is used). */
  readonly lines: string[];
  /** Resolves once `count` lines have been read. */
  linesRead(count: number): Promise<void>;
  /** Resolves when stderr first contains `text`. */
  stderrShows(text: string): Promise<void>;
  stderr(): string;
  /** Stops or restarts reading stdout. */
  readStdout(on: boolean): void;
  /** A `Vm…` field of the server's /proc status, in MiB (VmRSS now, VmHWM its peak). */
  memoryMiB(field: "VmRSS" | "VmHWM"): number;
  /** Closes stdin; resolves with the exit code. */
  end(): Promise<number | null>;
}

export function startPeer(args: string[], env: Record<string, string> = {}): Peer {
  const [command, ...rest] = mcpkitCommand();
  const child = spawn(command, [...rest, ...args], { cwd: REPO_ROOT, env: testEnv(env), stdio: "pipe" });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const lines: string[] = [];
  const wakes = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of wakes) wake();
  };
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      if (done()) return resolve();
      const check = () => {
        if (!done()) return;
        wakes.delete(check);
        resolve();
      };
      wakes.add(check);
    });

  let partial = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    const parts = (partial + text).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
    wakeAll();
  });
  let stderrText = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    stderrText += text;
    wakeAll();
  });

  let waitingForDrain = false;
  return {
    child,
    write: async (bytes) => {
      if (child.stdin.write(bytes)) return;
      waitingForDrain = true;
      wakeAll();
      await once(child.stdin, "drain");
      waitingForDrain = false;
    },
    writeBlocked: () => until(() => waitingForDrain),
    lines,
    linesRead: (count) => until(() => lines.length >= count),
    stderrShows: (text) => until(() => stderrText.includes(text)),
    stderr: () => stderrText,
    readStdout: (on) => void (on ? child.stdout.resume() : child.stdout.pause()),
    memoryMiB: (field) => {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kib = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
      return kib / 1024;
    },
    end: () => {
      child.stdin.end();
      return exited;
    },
  };
}

/** A 2025-11-25 client's opening: initialize and initialized, one line each. */
export function legacyOpening(): string {
  const initialize = {
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "peer", version: "1" } },
  };
  return `${JSON.stringify(initialize)}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`;
}
