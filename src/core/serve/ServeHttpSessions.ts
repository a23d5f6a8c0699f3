import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { IDisposable } from '../base/lifecycle';
import type { HarnessServeSession } from './HarnessMcpServer';

/** A 2025-era session unused this long is ended: 30 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;
/** Sessions at once: 1,000. */
export const DEFAULT_MAX_SESSIONS = 1000;

/** One 2025-era client's MCP session over HTTP. */
export interface HttpSession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  session?: HarnessServeSession;
  /** The caller an OAuth access token named when the session began; only that caller may use it. */
  readonly user?: string;
}

interface Entry {
  readonly session: HttpSession;
  /** When its last request ended (or began, while none is open). */
  lastUsed: number;
  /** Requests and streams open on it; a session with one open is never idle. */
  open: number;
}

export interface ServeHttpSessionsOptions {
  readonly idleTimeoutMs?: number;
  readonly maxSessions?: number;
  /** Clock (ms). */
  now?(): number;
  log?(message: string): void;
}

/**
 * The HTTP sessions of 2025-era clients, bounded: a session with no request for `idleTimeoutMs`
 * is closed (its id then gets 404, and the client initializes again), and no more than
 * `maxSessions` exist at once, counting the ones being initialized.
 */
export class ServeHttpSessions implements IDisposable {
  readonly idleTimeoutMs: number;
  readonly maxSessions: number;
  private readonly _entries = new Map<string, Entry>();
  private _initializing = 0;
  private readonly _sweeper: NodeJS.Timeout;

  constructor(private readonly _o: ServeHttpSessionsOptions = {}) {
    this.idleTimeoutMs = _o.idleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS;
    this.maxSessions = _o.maxSessions ?? DEFAULT_MAX_SESSIONS;
    // Expired sessions are also found when next asked for; the sweep frees the ones nobody asks for.
    this._sweeper = setInterval(() => this.sweep(), Math.max(250, Math.min(this.idleTimeoutMs / 2, 60_000)));
    this._sweeper.unref();
  }

  get size(): number {
    return this._entries.size;
  }

  /** Whether a new session must be refused: every place is taken or being taken. */
  get isFull(): boolean {
    this.sweep();
    return this._entries.size + this._initializing >= this.maxSessions;
  }

  /** Seconds until a place may free up: when the least recently used idle session expires. */
  retryAfterSeconds(): number {
    const now = this._now();
    let soonest = this.idleTimeoutMs;
    for (const entry of this._entries.values()) if (entry.open === 0) soonest = Math.min(soonest, entry.lastUsed + this.idleTimeoutMs - now);
    return Math.max(1, Math.ceil(soonest / 1000));
  }

  /** An initialize is under way: it holds a place until {@link endInitializing}. */
  beginInitializing(): void {
    this._initializing++;
  }

  endInitializing(): void {
    this._initializing--;
  }

  add(id: string, session: HttpSession): void {
    this._entries.set(id, { session, lastUsed: this._now(), open: 0 });
  }

  delete(id: string): void {
    this._entries.delete(id);
  }

  /** The live session `id`, or undefined when unknown or expired (an expired one is closed now). */
  get(id: string): HttpSession | undefined {
    const entry = this._entries.get(id);
    if (!entry) return undefined;
    if (this._expired(entry, this._now())) {
      this._close(id, entry);
      return undefined;
    }
    return entry.session;
  }

  /** Marks a request on `id` as open until the returned function is called. */
  use(id: string): () => void {
    const entry = this._entries.get(id);
    if (!entry) return () => undefined;
    entry.open++;
    entry.lastUsed = this._now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      entry.open--;
      entry.lastUsed = this._now();
    };
  }

  /** Closes every expired session. */
  sweep(): void {
    const now = this._now();
    for (const [id, entry] of this._entries) if (this._expired(entry, now)) this._close(id, entry);
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const all = [...this._entries.values()];
    this._entries.clear();
    await Promise.all(all.map((e) => e.session.transport.close().catch(() => undefined)));
  }

  dispose(): void {
    clearInterval(this._sweeper);
  }

  private _expired(entry: Entry, now: number): boolean {
    return entry.open === 0 && now - entry.lastUsed >= this.idleTimeoutMs;
  }

  private _close(id: string, entry: Entry): void {
    this._entries.delete(id);
    this._o.log?.(`session ${id} ended: idle for ${Math.round((this._now() - entry.lastUsed) / 1000)} s (limit ${Math.round(this.idleTimeoutMs / 1000)} s)`);
    void entry.session.transport.close().catch(() => undefined);
  }

  private _now(): number {
    return this._o.now?.() ?? Date.now();
  }
}
