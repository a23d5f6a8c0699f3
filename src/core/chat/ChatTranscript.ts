import type { AgentEvent, EmbeddedBlob } from '../agent/types';
import { makeHiddenVisible } from '../permissions/scanPoisoning';
import type { PermissionDecider, PermissionRequest } from '../permissions/types';
import type { ChatItem, ChatPermissionView, HostMessage } from '../../shared/chatProtocol';
import type { ToolUi } from '../apps/appResource';
import type { HarnessTool } from '../tools/types';
import { changeKindOf, changesThings, commandOf } from './ChangePreview';
import { keptAppResult } from './ChatApps';
import { cardTask, runningTaskCard, taskKeepsRunning } from './chatTaskResults';

/** What a waiting write's or edit's card shows of the change (computed after the card is up). */
export type ChatChangeView = NonNullable<ChatPermissionView['change']>;

/** Where the transcript gets a card's change preview and the workspace folders a command runs in. */
export interface IChangeDescriber {
  folders(): readonly string[];
  describe(request: PermissionRequest): Promise<ChatChangeView | undefined>;
}

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

/** Which tools have a UI (MCP Apps): their cards render it. */
export interface ITranscriptApps {
  uiOf(tool: HarnessTool): ToolUi | undefined;
}

/** Embedded binary resources a conversation keeps for their cards' Open and Attach (the newest). */
const MAX_EMBEDDED = 20;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The items of one conversation as the panel shows them, built from the agent's events alone: a
 * card's every state (the question included) comes from its call's events. Every change is posted
 * at once (`upsert`, or `append` for streamed text); the panel renders what it is sent.
 */
export class ChatTranscript {
  private readonly _items: ChatItem[];
  private readonly _index = new Map<string, number>();
  /** Item of each call, by the pipeline's id for it (unique, whatever ids the model gave). */
  private readonly _calls = new Map<string, string>();
  private readonly _callOfItem = new Map<string, string>();
  /** The question each waiting card asks, by item id (for "Preview Change"). */
  private readonly _requests = new Map<string, PermissionRequest>();
  /** Binary resources results embedded, by server and URI, for their cards' Open and Attach (the newest few). */
  private readonly _embedded = new Map<string, EmbeddedBlob>();
  /** The assistant item streamed text goes to; a tool call ends it, so text and cards keep their order. */
  private _assistant: string | undefined;
  private _counter: number;

  constructor(
    readonly id: string,
    items: readonly ChatItem[],
    private readonly _post: (message: HostMessage) => void,
    private readonly _changes?: IChangeDescriber,
    private readonly _apps?: ITranscriptApps,
  ) {
    this._items = [...items];
    this._items.forEach((item, i) => this._index.set(item.id, i));
    this._counter = this._items.length;
  }

  get items(): readonly ChatItem[] {
    return this._items;
  }

  /** The item `id`, if shown. */
  item(id: string): ChatItem | undefined {
    const at = this._index.get(id);
    return at === undefined ? undefined : this._items[at];
  }

  /** Drops every item from `count` on (a turn replaced by Retry or an edit); the caller re-sends `init`. */
  truncate(count: number): void {
    for (const item of this._items.splice(count)) this._index.delete(item.id);
    this._assistant = undefined;
  }

  nextId(prefix: string): string {
    let id: string;
    do id = `${prefix}${++this._counter}`;
    while (this._index.has(id));
    return id;
  }

  /** Adds or replaces an item and shows it. A user message starts a new turn. */
  add(item: ChatItem): void {
    if (item.kind !== 'assistant') this._assistant = undefined;
    this._put(item);
    this._post({ type: 'upsert', items: [item] });
  }

  onAgentEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'text':
        return this._appendText(event.delta);
      case 'tool_call':
        return this._toolEvent(event);
      case 'error':
        return this._error(event.message, event.kind);
      case 'notice':
        return this.add({ kind: 'notice', id: this.nextId('n'), level: event.level, text: event.message });
      case 'end':
        if (event.reason === 'stopped') this._stopped();
        return;
      case 'usage':
      case 'request':
        return;
    }
  }

  /** The call a card shows (the panel answers a card by its item id). */
  callOf(itemId: string): string | undefined {
    return this._callOfItem.get(itemId);
  }

  /** A binary resource a result of this conversation embedded (its card offers it), as it came. */
  embeddedResource(server: string, uri: string): EmbeddedBlob | undefined {
    return this._embedded.get(`${server}\n${uri}`);
  }

  /** What the card `itemId` asks, while it waits. */
  requestOf(itemId: string): PermissionRequest | undefined {
    return this._requests.get(itemId);
  }

  /** Keeps an embedded resource (the panel gets its name, not its bytes); the oldest go past {@link MAX_EMBEDDED}. */
  private _keep(server: string, blob: EmbeddedBlob): void {
    const key = `${server}\n${blob.uri}`;
    this._embedded.delete(key);
    this._embedded.set(key, blob);
    for (const oldest of this._embedded.keys()) {
      if (this._embedded.size <= MAX_EMBEDDED) break;
      this._embedded.delete(oldest);
    }
  }

  private _toolEvent(e: Extract<AgentEvent, { type: 'tool_call' }>): void {
    const id = this._callItemId(e.callId);
    const tool = e.tool;
    const item: Mutable<ToolItem> = { kind: 'tool', id, toolName: e.toolName, arguments: e.arguments, state: e.state };
    if (tool?.server !== undefined) item.server = tool.server;
    if (tool) item.tool = tool.originalName;
    if (tool?.title) item.title = tool.title;
    if (tool && tool.name !== e.toolName) item.exposedName = tool.name;
    if (e.progress) item.progress = e.progress;
    if (e.output !== undefined) item.output = e.output;
    if (e.runMs !== undefined) item.durationMs = Math.round(e.runMs);
    if (e.waitMs !== undefined) item.waitMs = Math.round(e.waitMs);
    if (e.decider && e.state !== 'waiting_for_approval') item.decidedBy = describeDecider(e.decider);
    if (e.state === 'waiting_for_approval' && e.permission) item.permission = permissionView(e.permission, this._changes?.folders() ?? []);
    if (e.warnings?.length) item.warnings = e.warnings.map((w) => ({ where: w.where, kind: w.kind, excerpt: w.excerpt }));
    if (e.stored) item.result = { handle: e.stored.handle, chars: e.stored.chars, lines: e.stored.lines };
    if (e.resourceLinks?.length) {
      item.resourceLinks = e.resourceLinks.map(({ embedded, ...link }) => {
        if (embedded && tool?.server !== undefined) this._keep(tool.server, embedded);
        return link;
      });
    }
    if (e.caller) item.caller = e.caller;
    // An app's own call answers the app: its card shows no second app.
    const ui = tool && !e.caller && this._apps?.uiOf(tool);
    if (ui) {
      const result = e.result && keptAppResult(e.result);
      item.app = 'error' in ui ? { resourceUri: '', error: ui.error } : { resourceUri: ui.resourceUri, ...(result !== undefined ? { result } : {}) };
    }
    const task = cardTask(e);
    if (task) item.task = task;
    // The host stopped following a task that keeps running: the card stays running until its result arrives.
    const ended = e.state !== 'running' && e.state !== 'waiting_for_approval';
    this.add(ended && taskKeepsRunning(item) ? runningTaskCard(item) : item);
    if (item.permission && e.permission) {
      this._requests.set(id, e.permission);
      this._describeChange(id, e.permission);
    } else {
      this._requests.delete(id);
    }
  }

  /** A write's diff is read from disk after the card is up; it joins the card if that still waits. */
  private _describeChange(id: string, request: PermissionRequest): void {
    const kind = changeKindOf(request.tool);
    if (!this._changes || (kind !== 'write' && kind !== 'edit')) return;
    void this._changes.describe(request).then(
      (change) => {
        const at = this._index.get(id);
        const item = at === undefined ? undefined : this._items[at];
        if (!change || item?.kind !== 'tool' || !item.permission || this._requests.get(id) !== request) return;
        this.add({ ...item, permission: { ...item.permission, change } });
      },
      () => undefined,
    );
  }

  private _appendText(delta: string): void {
    if (!delta) return;
    // Cutting the transcript back (`truncate`) forgets the open answer too, so an id here is always indexed.
    if (this._assistant === undefined) {
      const id = this.nextId('a');
      this.add({ kind: 'assistant', id, text: '' });
      this._assistant = id;
    }
    const at = this._index.get(this._assistant)!;
    const item = this._items[at] as Extract<ChatItem, { kind: 'assistant' }>;
    this._items[at] = { ...item, text: item.text + delta };
    this._post({ type: 'append', id: item.id, delta });
  }

  /** A stopped turn: its partial answer says so, or a notice does when no text had come. */
  private _stopped(): void {
    const at = this._assistant === undefined ? undefined : this._index.get(this._assistant);
    const item = at === undefined ? undefined : this._items[at];
    if (item?.kind === 'assistant') this.add({ ...item, stopped: true });
    else this.add({ kind: 'notice', id: this.nextId('n'), level: 'info', text: 'Stopped.' });
  }

  private _error(message: string, kind: string): void {
    if (kind === 'auth') {
      this.add({ kind: 'notice', id: this.nextId('n'), level: 'error', text: message, action: { id: 'setApiKey', label: 'Set API Key...' } });
      return;
    }
    if (kind === 'step_limit') {
      this.add({ kind: 'notice', id: this.nextId('n'), level: 'warning', text: message });
      return;
    }
    const at = this._assistant === undefined ? undefined : this._index.get(this._assistant);
    const item = at === undefined ? undefined : this._items[at];
    if (item?.kind === 'assistant') this.add({ ...item, error: message });
    else this.add({ kind: 'assistant', id: this.nextId('a'), text: '', error: message });
  }

  private _callItemId(callId: string): string {
    let id = this._calls.get(callId);
    if (id === undefined) {
      id = this.nextId('tool');
      this._calls.set(callId, id);
      this._callOfItem.set(id, callId);
    }
    return id;
  }

  private _put(item: ChatItem): void {
    const at = this._index.get(item.id);
    if (at === undefined) {
      this._index.set(item.id, this._items.length);
      this._items.push(item);
    } else {
      this._items[at] = item;
    }
  }
}

/** What the card asks. Hidden characters are shown as <U+200B> and the like: the card shows what the model would read. */
function permissionView(request: PermissionRequest, folders: readonly string[]): ChatPermissionView {
  const tool = request.tool;
  const command = changeKindOf(tool) === 'command' ? commandOf(request.arguments, folders) : undefined;
  return {
    ...(changesThings(tool) ? { changes: true } : {}),
    ...(command ? { command } : {}),
    ...(tool.title ? { title: makeHiddenVisible(tool.title) } : {}),
    description: makeHiddenVisible(tool.description),
    ...(tool.annotations ? { annotations: pickAnnotations(tool.annotations) } : {}),
    warnings: request.warnings.map((w) => ({ where: w.where, kind: w.kind, excerpt: w.excerpt })),
    ...(request.changedSinceApproval ? { changedSinceApproval: request.changedSinceApproval } : {}),
    ...(request.askedBy ? { askedBy: `The hook "${request.askedBy.hook}" asks you${request.askedBy.reason ? `: ${request.askedBy.reason}` : '.'}` } : {}),
  };
}

/** Why a call ran or did not, in a few words for the card. */
export function describeDecider(decider: PermissionDecider): string {
  switch (decider.by) {
    case 'rule':
      return `by the rule "${decider.rule}" (mcpHarness.permissions)`;
    case 'remembered':
      return decider.scope === 'session' ? 'allowed for this session' : decider.scope === 'workspace' ? 'always allowed in this workspace' : "server allowed for this session";
    case 'user':
      return decider.choice === 'deny' ? 'denied by you' : decider.choice === 'once' ? 'allowed once by you' : 'allowed by you';
    case 'read_only_setting':
      return 'allowed as read-only (mcpHarness.permissions.autoAllowReadOnly)';
    case 'caller':
      return 'run by you';
    case 'hook':
      return `by the hook "${decider.hook}"`;
  }
}

function pickAnnotations(a: NonNullable<PermissionRequest['tool']['annotations']>) {
  const out: Record<string, boolean> = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) if (typeof a[key] === 'boolean') out[key] = a[key];
  return out;
}
