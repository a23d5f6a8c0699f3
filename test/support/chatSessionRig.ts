import { expect } from 'vitest';
import { ChatHistoryStore, ChatSession, type ChatModelEntry, type ChatSessionOptions, type StoredConversation } from '../../src/core/chat';
import type { IModelProvider, ModelRequest } from '../../src/core/agent/types';
import { PermissionGate } from '../../src/core/permissions';
import { parseElicitationForm } from '../../src/core/requests/elicitationForm';
import type { ICallDecider } from '../../src/core/permissions/types';
import type { ChatItem, HostMessage, WebviewRequest } from '../../src/shared/chatProtocol';
import { parseHostMessage } from '../../src/shared/parseChatMessage';
import { MemoryMemento } from './memento';
import { PipelineFixture, type TestToolHandler } from './pipeline';

export type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

/** A gate that lets every call through without a card. */
export const ALLOW_ALL: ICallDecider = { decide: async () => ({ outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };

/** The picker's entry for `provider` (`script:m` unless `id` says otherwise). */
export function modelEntry(provider: IModelProvider, id = 'script:m', contextWindow?: number): ChatModelEntry {
  return { choice: { id, label: id }, provider, model: 'm', ...(contextWindow ? { contextWindow } : {}) };
}

/**
 * What every test session shares (spread it first, then override): no servers, a picker that does
 * nothing, five steps, no actions, no log, and a `post` that passes each message through the
 * panel's own validator into `posted`.
 */
export function sessionDefaults(posted: HostMessage[]) {
  return {
    servers: () => [],
    selectModel: async () => {},
    settings: () => ({ maxSteps: 5, toolSearch: {} }),
    post: (m: HostMessage) => {
      const parsed = parseHostMessage(JSON.parse(JSON.stringify(m)));
      if (!parsed.ok) throw new Error(parsed.error);
      posted.push(m);
    },
    runAction: async () => {},
    copy: async () => {},
    log: () => {},
  } satisfies Partial<ChatSessionOptions>;
}

export interface ChatRigOptions {
  /** The one model on offer (none when left out); `models` in `extra` replaces it. */
  readonly model?: IModelProvider;
  readonly memento?: MemoryMemento;
  /** What the fixture's servers answer (default: `ran NAME`). */
  readonly handler?: TestToolHandler;
  /** The gate (default: a permission gate that asks through the session's cards). */
  readonly gate?: ICallDecider;
  readonly extra?: Partial<ChatSessionOptions>;
}

/**
 * A chat session over a real pipeline, gate and history in memory. Everything it posts is checked
 * by the panel's own validator and kept in `posted`; its log lines are kept in `logs`.
 */
export function chatRig(o: ChatRigOptions = {}) {
  const posted: HostMessage[] = [];
  const logs: string[] = [];
  const memento = o.memento ?? new MemoryMemento();
  const fx = new PipelineFixture(o.handler ?? (async (name) => ({ isError: false, text: `ran ${name}` })));
  const entry = o.model ? modelEntry(o.model) : undefined;
  let session: ChatSession;
  const gate = o.gate ?? new PermissionGate({ prompter: { ask: (r, s) => session.prompter.ask(r, s) } });
  session = new ChatSession({
    ...sessionDefaults(posted),
    enabledTools: () => fx.tools(),
    call: fx.call,
    gate,
    history: new ChatHistoryStore(memento),
    models: async () => ({ entries: entry ? [entry] : [], selected: entry }),
    log: (line) => void logs.push(line),
    ...o.extra,
  });
  /** A panel request, answered as the view provider answers it: undefined, or the error shown. */
  const handle = async (request: WebviewRequest): Promise<string | undefined> => {
    const { type, ...params } = request;
    try {
      await (session.requests[type] as (p: typeof params) => Promise<unknown>)(params);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  };
  const items = (): readonly ChatItem[] => session.state().items;
  const tools = (): ToolItem[] => items().filter((i): i is ToolItem => i.kind === 'tool');
  const stored = (id = session.state().conversationId) => new ChatHistoryStore(memento).load(id);
  return { session, posted, logs, memento, fx, handle, items, tools, stored };
}

/** Puts a conversation in the workspace's history as the current one (a window opening finds it). */
export async function storeConversation(memento: MemoryMemento, conversation: Pick<StoredConversation, 'id' | 'items' | 'messages'> & Partial<StoredConversation>): Promise<void> {
  await new ChatHistoryStore(memento).save({ title: 'Stored', createdAt: 1, updatedAt: 1, ...conversation });
}

/** Polls until `check` holds (a bounded number of times), then asserts it. */
export async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

/**
 * A model whose answers wait until `release()` or until the turn is stopped (then, after
 * `stopDelayMs`, it gives up as a stopped stream does); released, it says "done".
 */
export function heldModel(stopDelayMs = 0) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const requests: ModelRequest[] = [];
  const provider: IModelProvider = {
    id: 'held',
    label: 'Held',
    models: async () => [],
    async *stream(request, signal) {
      requests.push(request);
      await Promise.race([released, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
      if (signal.aborted) {
        await new Promise((r) => setTimeout(r, stopDelayMs));
        throw new Error('aborted');
      }
      yield { type: 'text', delta: 'done' };
      yield { type: 'end', reason: 'stop' };
    },
  };
  return { provider, requests, release: () => release() };
}

/** A server asks for a name through a form beside the transcript (`f1` of "srv"); resolves the answer. */
export function askName(session: ChatSession) {
  const form = parseElicitationForm('Name?', { type: 'object', properties: { name: { type: 'string' } } });
  if (!form.ok) throw new Error(form.error);
  return session.asks.askForm({ id: 'f1', server: 'srv', form: form.value }, new AbortController().signal);
}
