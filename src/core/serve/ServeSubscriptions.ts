import { Disposable } from '../base/lifecycle';
import type { ServerRequestOptions } from '../calls/ServerRequests';
import type { McpHarness } from '../McpHarness';
import { gatewayUri } from './ServeCatalog';

/** A gateway client that subscribed to resources: told, by gateway URI, when one changed. */
export interface IResourceSubscriber {
  resourceUpdated(uri: string): void;
}

/**
 * The gateway clients' resource subscriptions, held through the harness (one upstream
 * subscription per resource however many clients want it, renewed after a reconnect), with each
 * update passed to its subscribers under the gateway URI.
 */
export class ServeSubscriptions extends Disposable {
  /** Gateway URI -> the clients subscribed to it. */
  private readonly _byUri = new Map<string, Set<IResourceSubscriber>>();

  constructor(private readonly _harness: McpHarness) {
    super();
    this._register(
      _harness.onDidUpdateResource(({ server, uri }) => {
        const key = gatewayUri(server, uri);
        for (const subscriber of this._byUri.get(key) ?? []) subscriber.resourceUpdated(key);
      }),
    );
  }

  /** Subscribes `subscriber` to the resource `uri` of `server` (the URI its server knows). */
  async subscribe(subscriber: IResourceSubscriber, server: string, uri: string, options: ServerRequestOptions): Promise<void> {
    await this._harness.subscribeResource(server, uri, subscriber, options);
    const key = gatewayUri(server, uri);
    let subscribers = this._byUri.get(key);
    if (!subscribers) this._byUri.set(key, (subscribers = new Set()));
    subscribers.add(subscriber);
  }

  /** Ends `subscriber`'s subscription to a resource; the last one out unsubscribes upstream. */
  async unsubscribe(subscriber: IResourceSubscriber, server: string, uri: string, options: ServerRequestOptions): Promise<void> {
    const key = gatewayUri(server, uri);
    const subscribers = this._byUri.get(key);
    subscribers?.delete(subscriber);
    if (subscribers?.size === 0) this._byUri.delete(key);
    await this._harness.unsubscribeResource(server, uri, subscriber, options);
  }

  /** A client went away: its subscriptions end, and upstream ones nobody else holds. */
  drop(subscriber: IResourceSubscriber): void {
    for (const [key, subscribers] of [...this._byUri]) {
      if (subscribers.delete(subscriber) && subscribers.size === 0) this._byUri.delete(key);
    }
    this._harness.dropSubscriptions(subscriber);
  }
}
