import { errorMessage } from '../base/errors';
import { Emitter, type Event } from '../base/event';
import { Disposable } from '../base/lifecycle';
import type { ServerRequestOptions, ServerRequests } from './ServerRequests';

/** A resource change a server reported, for a resource someone subscribed to. */
export interface ResourceUpdate {
  readonly server: string;
  /** The URI as the server knows it. */
  readonly uri: string;
}

interface Upstream {
  readonly server: string;
  readonly uri: string;
  readonly holders: Set<object>;
  /** The subscription is being made; holders who arrive meanwhile wait for it. */
  pending?: Promise<void>;
}

/**
 * Everyone's resource subscriptions (gateway clients, the chat's attached resources): one upstream
 * `resources/subscribe` per resource however many hold it, `resources/unsubscribe` when the last
 * one lets go, and renewed whenever the server's connection starts a new session (a reconnect
 * forgets them on the server's side).
 */
export class ResourceSubscriptions extends Disposable {
  private readonly _onDidUpdate = this._register(new Emitter<ResourceUpdate>());
  /** A subscribed resource changed. */
  readonly onDidUpdate: Event<ResourceUpdate> = this._onDidUpdate.event;
  private readonly _upstream = new Map<string, Upstream>();

  constructor(
    private readonly _requests: ServerRequests,
    private readonly _log: (server: string, message: string) => void,
  ) {
    super();
  }

  /** Subscribes `holder` to a resource; resolves when the server has accepted it. */
  async subscribe(server: string, uri: string, holder: object, options: ServerRequestOptions = {}): Promise<void> {
    const key = keyOf(server, uri);
    const existing = this._upstream.get(key);
    if (existing) {
      // A subscription someone else is making: wait for it; if it fails, this holder tries itself.
      if (existing.pending) await existing.pending.catch(() => undefined);
      // The request we waited for may have failed and taken the entry with it.
      if (this._upstream.get(key) === existing) {
        existing.holders.add(holder);
        return;
      }
    }
    const entry: Upstream = { server, uri, holders: new Set([holder]) };
    this._upstream.set(key, entry);
    entry.pending = this._requests.subscription(server, uri, 'resources/subscribe', options).then(
      () => {
        entry.pending = undefined;
      },
      (err: unknown) => {
        if (this._upstream.get(key) === entry) this._upstream.delete(key);
        throw err;
      },
    );
    await entry.pending;
  }

  /** Ends `holder`'s subscription; the last holder out unsubscribes upstream. */
  async unsubscribe(server: string, uri: string, holder: object, options: ServerRequestOptions = {}): Promise<void> {
    const key = keyOf(server, uri);
    const entry = this._upstream.get(key);
    if (!entry?.holders.delete(holder) || entry.holders.size > 0) return;
    this._upstream.delete(key);
    await this._requests.subscription(server, uri, 'resources/unsubscribe', options);
  }

  /** `holder` went away: each of its subscriptions ends, upstream too where nobody else holds it. */
  drop(holder: object): void {
    for (const entry of [...this._upstream.values()]) {
      if (entry.holders.has(holder)) {
        this.unsubscribe(entry.server, entry.uri, holder).catch((err: unknown) => this._log(entry.server, `resources/unsubscribe failed: ${errorMessage(err)}`));
      }
    }
  }

  /** Whether anyone holds a subscription to this resource. */
  isSubscribed(server: string, uri: string): boolean {
    return this._upstream.has(keyOf(server, uri));
  }

  /** A server reported `notifications/resources/updated`. */
  updated(server: string, uri: string): void {
    if (this._upstream.has(keyOf(server, uri))) this._onDidUpdate.fire({ server, uri });
  }

  /** A server's connection started a new session: its subscriptions are made again. */
  renew(server: string): void {
    for (const entry of this._upstream.values()) {
      if (entry.server !== server || entry.pending) continue;
      this._requests
        .subscription(server, entry.uri, 'resources/subscribe')
        .then(
          // What changed while it was down is not known: holders should read it again.
          () => this._onDidUpdate.fire({ server, uri: entry.uri }),
          (err: unknown) => this._log(server, `could not renew the subscription to ${entry.uri} after reconnecting: ${errorMessage(err)}`),
        );
    }
  }

  /** Forgets a server's subscriptions (it was removed from the configuration). */
  forgetServer(server: string): void {
    for (const [key, entry] of this._upstream) if (entry.server === server) this._upstream.delete(key);
  }
}

function keyOf(server: string, uri: string): string {
  return JSON.stringify([server, uri]);
}
