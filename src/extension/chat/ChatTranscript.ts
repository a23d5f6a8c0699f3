import type { AgentEvent } from '../../core/agent';
import { makeHiddenVisible } from '../../core/permissions';
import type { PermissionRequest } from '../../core/permissions/types';
import type { ChatItem, HostMessage } from '../../shared/chatProtocol';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The items of one conversation as the panel shows them, built from the agent's events. Every change
 * is posted at once (`upsert`, or `append` for streamed text); the panel renders what it is sent.
 */
export class ChatTranscript {
  private readonly _items: ChatItem[];
  private readonly _index = new Map<string, number>();
  /** Item of each model call id in the current turn (ids may repeat across turns). */
  private _calls = new Map<string, string>();
  /** The assistant item streamed text goes to; a tool call ends it, so text and cards keep their order. */
  private _assistant: string | undefined;
  private _counter: number;

  constructor(
    readonly id: string,
    items: readonly ChatItem[],
    private readonly _post: (message: HostMessage) => void,
    /** Title and server-side name of an enabled tool, for cards no prompt described. */
    private readonly _describe: (name: string) => { title?: string; tool?: string } | undefined = () => undefined,
  ) {
    this._items = [...items];
    this._items.forEach((item, i) => this._index.set(item.id, i));
    this._counter = this._items.length;
  }

  get items(): readonly ChatItem[] {
    return this._items;
  }

  nextId(prefix: string): string {
    let id: string;
    do id = `${prefix}${++this._counter}`;
    while (this._index.has(id));
    return id;
  }

  /** Adds or replaces an item and shows it. A user message starts a new turn. */
  add(item: ChatItem): void {
    if (item.kind === 'user') {
      this._calls = new Map();
      this._assistant = undefined;
    }
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
      case 'usage':
      case 'end':
        return;
    }
  }

  /** Shows the permission section on the call's card; returns the card's id (what the panel answers with). */
  showPermission(request: PermissionRequest): string {
    const id = this._callItemId(request.callId);
    const existing = this._get(id);
    const tool = request.tool;
    const item: ToolItem = {
      kind: 'tool',
      id,
      toolName: tool.name,
      ...(tool.server !== undefined ? { server: tool.server } : {}),
      tool: tool.originalName,
      ...(tool.title ? { title: tool.title } : {}),
      arguments: request.arguments,
      state: 'waiting_for_approval',
      // Hidden characters are shown as <U+200B> and the like: the card shows what the model would read.
      permission: {
        ...(tool.title ? { title: makeHiddenVisible(tool.title) } : {}),
        description: makeHiddenVisible(tool.description),
        ...(tool.annotations ? { annotations: pickAnnotations(tool.annotations) } : {}),
        warnings: request.warnings.map((w) => ({ where: w.where, kind: w.kind, excerpt: w.excerpt })),
        ...(request.changedSinceApproval ? { changedSinceApproval: request.changedSinceApproval } : {}),
      },
      ...(existing?.warnings ? { warnings: existing.warnings } : {}),
    };
    this.add(item);
    return id;
  }

  private _toolEvent(e: Extract<AgentEvent, { type: 'tool_call' }>): void {
    const id = this._callItemId(e.callId);
    const existing = this._get(id);
    const item: Mutable<ToolItem> = {
      kind: 'tool',
      id,
      toolName: e.toolName,
      arguments: e.arguments,
      state: e.state,
    };
    const server = e.server ?? existing?.server;
    if (server !== undefined) item.server = server;
    const described = existing?.tool === undefined ? this._describe(e.toolName) : undefined;
    const tool = existing?.tool ?? described?.tool;
    const title = existing?.title ?? described?.title;
    if (tool !== undefined) item.tool = tool;
    if (title !== undefined) item.title = title;
    if (e.progress) item.progress = e.progress;
    if (e.output !== undefined) item.output = e.output;
    if (e.durationMs !== undefined) item.durationMs = e.durationMs;
    // A waiting card keeps what the prompter showed; any other state closes the permission section.
    if (e.state === 'waiting_for_approval' && existing?.permission) item.permission = existing.permission;
    const warnings = [...(existing?.warnings ?? []), ...(e.warnings ?? []).map((w) => ({ where: w.where, kind: w.kind, excerpt: w.excerpt }))];
    if (warnings.length) item.warnings = dedupe(warnings);
    this.add(item);
  }

  private _appendText(delta: string): void {
    if (!delta) return;
    if (this._assistant === undefined || !this._index.has(this._assistant)) {
      const id = this.nextId('a');
      this.add({ kind: 'assistant', id, text: '' });
      this._assistant = id;
    }
    const at = this._index.get(this._assistant)!;
    const item = this._items[at] as Extract<ChatItem, { kind: 'assistant' }>;
    this._items[at] = { ...item, text: item.text + delta };
    this._post({ type: 'append', id: item.id, delta });
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
    }
    return id;
  }

  private _get(id: string): ToolItem | undefined {
    const at = this._index.get(id);
    const item = at === undefined ? undefined : this._items[at];
    return item?.kind === 'tool' ? item : undefined;
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

function pickAnnotations(a: NonNullable<PermissionRequest['tool']['annotations']>) {
  const out: Record<string, boolean> = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) if (typeof a[key] === 'boolean') out[key] = a[key];
  return out;
}

function dedupe<T extends { where: string; kind: string; excerpt: string }>(list: T[]): T[] {
  const seen = new Set<string>();
  return list.filter((w) => {
    const key = `${w.where}\u0000${w.kind}\u0000${w.excerpt}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
