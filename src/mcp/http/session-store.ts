/**
 * The sessions of a sessionful `mcpkit --http`: one legacy session engine + its transport per `mcp-session-id`,
 * a cap on how many exist in all and per owner, expiry of idle ones, and the owner each one is
 * bound to (the token's issuer + `sub`), so one user cannot take every session.
 *
 * "Idle" means no JSON-RPC request in flight and none started for `idleMs`; an open GET stream
 * alone does not keep a session alive (its client re-initializes after a 404, as the spec says).
 */
import type { Logger } from "../../core/log.ts";
import { sessionTag } from "../../core/session-tag.ts";
import type { SessionTransport } from "./session-transport.ts";

export interface Session {
  readonly id: string;
  readonly transport: SessionTransport;
  /** Who opened the session: `ownerKey(issuer, sub)` of its token (undefined without authorization). */
  readonly owner: string | undefined;
  lastActive: number;
}

/** Why `reserve` said no: the whole server is full, or this owner holds its share. */
export type Refusal = "server-full" | "owner-full";

export interface SessionLimits {
  maxSessions: number;
  /** Applies to owned sessions only: without authorization there is no one to tell apart. */
  maxPerOwner: number;
  idleMs: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  /** Initialize requests admitted but whose session id is not issued yet (counted against the cap). */
  private reserved = 0;
  /** Sessions and reservations per owner (entries are removed at zero, so the map stays small). */
  private readonly perOwner = new Map<string, number>();
  private readonly sweeper: ReturnType<typeof setInterval>;
  private readonly maxSessions: number;
  private readonly maxPerOwner: number;
  private readonly idleMs: number;

  constructor(
    limits: SessionLimits,
    private readonly log: Logger,
  ) {
    this.maxSessions = limits.maxSessions;
    this.maxPerOwner = limits.maxPerOwner;
    this.idleMs = limits.idleMs;
    // Check often enough that a session never outlives its idle time by more than a quarter.
    const every = Math.min(60_000, Math.max(250, Math.floor(limits.idleMs / 4)));
    this.sweeper = setInterval(() => this.expireIdle(), every);
    this.sweeper.unref?.();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Requests in flight across every session (for graceful shutdown); each session's transport keeps the record. */
  get pendingRequests(): number {
    let total = 0;
    for (const session of this.sessions.values()) total += session.transport.requests.size;
    return total;
  }

  /** Resolves once no session has a request in flight. */
  async whenIdle(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.transport.requests.whenIdle()));
  }

  /** Sessions (and reservations) `owner` holds now. */
  heldBy(owner: string): number {
    return this.perOwner.get(owner) ?? 0;
  }

  /**
   * Claims room for one more session of `owner`; a refusal when a cap is reached. Pair with
   * `add` (same owner) or `release(owner)`.
   */
  reserve(owner: string | undefined): Refusal | undefined {
    if (this.sessions.size + this.reserved >= this.maxSessions) return "server-full";
    if (owner !== undefined) {
      const held = this.heldBy(owner);
      if (held >= this.maxPerOwner) return "owner-full";
      this.perOwner.set(owner, held + 1);
    }
    this.reserved++;
    return undefined;
  }

  /** Gives back a reservation whose initialize did not open a session. */
  release(owner: string | undefined): void {
    if (this.reserved > 0) this.reserved--;
    this.countDown(owner);
  }

  /** Registers a session whose id was just issued (consumes the reservation; the owner count stays). */
  add(session: Session): void {
    if (this.reserved > 0) this.reserved--;
    this.sessions.set(session.id, session);
    this.log.debug("session opened", { session: sessionTag(session.id), open: this.sessions.size });
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Forgets a session (called when its transport closed, whatever closed it). */
  forget(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.countDown(session.owner);
    this.log.debug("session closed", { session: sessionTag(id), open: this.sessions.size });
  }

  private countDown(owner: string | undefined): void {
    if (owner === undefined) return;
    const held = this.heldBy(owner) - 1;
    if (held > 0) this.perOwner.set(owner, held);
    else this.perOwner.delete(owner);
  }

  async close(session: Session): Promise<void> {
    this.forget(session.id);
    // Closing the transport closes the session engine on it (`legacy-endpoint.ts`).
    await session.transport.close();
  }

  /**
   * Ends every session. Calls still in flight get an error response first, so their clients
   * hear that the call was cancelled instead of waiting on an answer that never comes.
   */
  async closeAll(reason: string): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    for (const session of sessions) session.transport.requests.cancelAll(reason);
    await Promise.all(sessions.map((session) => this.close(session)));
  }

  private expireIdle(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const session of this.sessions.values()) {
      if (session.transport.requests.size === 0 && session.lastActive < cutoff) {
        this.log.info("session expired after being idle", { session: sessionTag(session.id), idleMs: this.idleMs });
        void this.close(session);
      }
    }
  }
}
