import { errorMessage } from '../base/errors';
import type { IDisposable } from '../base/lifecycle';
import type { ChatAttachmentChip } from '../../shared/chatProtocol';
import type { ChatAttachment } from './ChatContext';
import { resourceAttachment } from './resourceAttachment';
import type { IChatServerItems } from './ChatServerItems';

interface Entry {
  readonly id: string;
  attachment: ChatAttachment;
  updated: boolean;
  /** Held while the server tells of changes to this resource. */
  subscribed: boolean;
}

/**
 * What goes with the next message, in the order attached; only the person's action adds to it.
 * An attached resource of a server that offers subscriptions is subscribed to while its chip is
 * shown: when the server says it changed, it is read again and its chip says "updated".
 */
export class ChatAttachments implements IDisposable {
  private _entries: Entry[] = [];
  private _counter = 0;
  private readonly _listener: IDisposable | undefined;

  constructor(
    private readonly _post: (chips: ChatAttachmentChip[]) => void,
    private readonly _items: IChatServerItems | undefined,
    private readonly _log: (line: string) => void,
  ) {
    this._listener = _items?.onDidUpdateResource((e) => this._updated(e.server, e.uri));
  }

  get length(): number {
    return this._entries.length;
  }

  /** Adds one; a resource is subscribed to when its server offers that (resolves once it is, or failed). */
  async add(attachment: ChatAttachment): Promise<void> {
    const entry: Entry = { id: `ctx${++this._counter}`, attachment, updated: false, subscribed: false };
    this._entries.push(entry);
    this._changed();
    await this._subscribe(entry);
  }

  /** Sets (or, with no attachment, removes) the one under a key of the caller's: an app's context, replaced by its next update. */
  put(key: string, attachment: ChatAttachment | undefined): void {
    const old = this._entries.find((e) => e.id === key);
    if (old) {
      this._release(old);
      this._entries = this._entries.filter((e) => e !== old);
    }
    if (attachment) this._entries.push({ id: key, attachment, updated: false, subscribed: false });
    if (old || attachment) this._changed();
  }

  remove(id: string): void {
    const entry = this._entries.find((e) => e.id === id);
    if (!entry) return;
    this._entries = this._entries.filter((e) => e !== entry);
    this._release(entry);
    this._changed();
  }

  /** Everything attached, for the message being sent; the chips go. */
  take(): ChatAttachment[] {
    const taken = this._entries.splice(0);
    for (const entry of taken) this._release(entry);
    if (taken.length) this._changed();
    return taken.map((e) => e.attachment);
  }

  chips(): ChatAttachmentChip[] {
    return this._entries.map((e) => ({
      id: e.id,
      label: e.attachment.label,
      ...(e.attachment.detail ? { detail: e.attachment.detail } : {}),
      ...(e.updated ? { updated: true } : {}),
    }));
  }

  dispose(): void {
    this._listener?.dispose();
    for (const entry of this._entries.splice(0)) this._release(entry);
  }

  private async _subscribe(entry: Entry): Promise<void> {
    const { server, path: uri } = entry.attachment;
    if (server === undefined || !this._items) return;
    const snapshot = this._items.snapshots().find((s) => s.name === server);
    if (!snapshot?.capabilities?.resources?.subscribe) return;
    entry.subscribed = true;
    try {
      await this._items.subscribeResource(server, uri, entry);
    } catch (err) {
      entry.subscribed = false;
      this._log(`chat: subscribing to ${uri} of ${server} failed: ${errorMessage(err)}`);
      return;
    }
    // Removed (or sent) while the subscription was being made: let go of it now.
    if (!this._entries.includes(entry)) this._release(entry);
  }

  private _release(entry: Entry): void {
    const { server, path: uri } = entry.attachment;
    if (!entry.subscribed || server === undefined || !this._items) return;
    entry.subscribed = false;
    this._items.unsubscribeResource(server, uri, entry).catch((err: unknown) => this._log(`chat: unsubscribing from ${uri} of ${server} failed: ${errorMessage(err)}`));
  }

  /** The server says a resource changed: each chip holding it gets the new content. */
  private _updated(server: string, uri: string): void {
    for (const entry of this._entries) {
      if (entry.attachment.server !== server || entry.attachment.path !== uri) continue;
      this._items!.readResource(server, uri).then(
        (result) => {
          if (!this._entries.includes(entry)) return;
          entry.attachment = resourceAttachment(server, uri, entry.attachment.label, result);
          entry.updated = true;
          this._changed();
        },
        (err: unknown) => this._log(`chat: reading ${uri} of ${server} again after it changed failed: ${errorMessage(err)}`),
      );
    }
  }

  private _changed(): void {
    this._post(this.chips());
  }
}
