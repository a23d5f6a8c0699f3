import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { DisposableStore, type IDisposable } from '../base/lifecycle';
import type { McpConnection } from '../mcp/McpConnection';
import type { McpCallOptions } from '../mcp/McpSession';
import { gatewayUri } from './ServeCatalog';
import { errorMessage } from '../base/errors';

/** A gateway client that subscribed to resources: told, by gateway URI, when one changed. */
export interface IResourceSubscriber {
  resourceUpdated(uri: string): void;
}

interface Subscription {
  readonly server: string;
  readonly uri: string;
  readonly subscribers: Set<IResourceSubscriber>;
}

/**
 * The gateway clients' resource subscriptions: one upstream `resources/subscribe` per resource
 * however many clients want it, `resources/unsubscribe` when the last one leaves, and every
 * `notifications/resources/updated` from a server passed to its subscribers under the gateway URI.
 */
export class ServeSubscriptions implements IDisposable {
  private readonly _byUri = new Map<string, Subscription>();
  /** One listener per server with subscriptions, on the connection it was subscribed through. */
  private readonly _listeners = new Map<string, { connection: McpConnection; store: DisposableStore }>();

  constructor(private readonly _log: (message: string) => void = () => undefined) {}

  /** Subscribes `subscriber` to the resource `uri` of `connection`'s server. */
  async subscribe(subscriber: IResourceSubscriber, connection: McpConnection, uri: string, options: McpCallOptions): Promise<void> {
    if (!connection.snapshot.capabilities?.resources?.subscribe) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${connection.name} does not offer resource subscriptions`);
    }
    const key = gatewayUri(connection.name, uri);
    const existing = this._byUri.get(key);
    if (existing) {
      existing.subscribers.add(subscriber);
      return;
    }
    await connection.request({ method: 'resources/subscribe', params: { uri } }, options);
    // Another client may have subscribed while the request was out.
    const again = this._byUri.get(key);
    if (again) again.subscribers.add(subscriber);
    else this._byUri.set(key, { server: connection.name, uri, subscribers: new Set([subscriber]) });
    this._listen(connection);
  }

  /** Ends `subscriber`'s subscription to a resource; the last one out unsubscribes upstream. */
  async unsubscribe(subscriber: IResourceSubscriber, connection: McpConnection, uri: string, options: McpCallOptions): Promise<void> {
    const key = gatewayUri(connection.name, uri);
    const subscription = this._byUri.get(key);
    if (!subscription?.subscribers.delete(subscriber) || subscription.subscribers.size > 0) return;
    this._byUri.delete(key);
    this._unlistenIfIdle(connection.name);
    await connection.request({ method: 'resources/unsubscribe', params: { uri } }, options);
  }

  /** A client went away: its subscriptions end, and upstream ones nobody else holds. */
  drop(subscriber: IResourceSubscriber): void {
    for (const [key, subscription] of [...this._byUri]) {
      if (!subscription.subscribers.delete(subscriber) || subscription.subscribers.size > 0) continue;
      this._byUri.delete(key);
      const listener = this._listeners.get(subscription.server);
      this._unlistenIfIdle(subscription.server);
      listener?.connection
        .request({ method: 'resources/unsubscribe', params: { uri: subscription.uri } }, { timeoutMs: 10_000, maxTotalTimeoutMs: 10_000 })
        .catch((err: unknown) => this._log(`${subscription.server}: resources/unsubscribe failed: ${errorMessage(err)}`));
    }
  }

  dispose(): void {
    for (const { store } of this._listeners.values()) store.dispose();
    this._listeners.clear();
    this._byUri.clear();
  }

  private _listen(connection: McpConnection): void {
    const current = this._listeners.get(connection.name);
    if (current?.connection === connection) return;
    current?.store.dispose();
    const store = new DisposableStore();
    store.add(connection.onDidUpdateResource((uri) => this._updated(connection.name, uri)));
    this._listeners.set(connection.name, { connection, store });
  }

  private _unlistenIfIdle(server: string): void {
    if ([...this._byUri.values()].some((s) => s.server === server)) return;
    this._listeners.get(server)?.store.dispose();
    this._listeners.delete(server);
  }

  private _updated(server: string, uri: string): void {
    const key = gatewayUri(server, uri);
    for (const subscriber of this._byUri.get(key)?.subscribers ?? []) subscriber.resourceUpdated(key);
  }
}
