import { McpServer } from '@modelcontextprotocol/server';
import { onTestFinished } from 'vitest';
import * as z from 'zod/v4';
import { UI_MIME_TYPE } from '../../src/core/apps/appResource';
import type { AgentEvent } from '../../src/core/agent/types';
import { ChatApps, type IChatAppsSession } from '../../src/core/chat/ChatApps';
import { McpHarness } from '../../src/core/McpHarness';
import type { HarnessOptions } from '../../src/core/HarnessTypes';
import type { AuditStart } from '../../src/core/permissions/AuditLog';
import type { PermissionRules } from '../../src/core/permissions/evaluatePermission';
import { PermissionGate } from '../../src/core/permissions/PermissionGate';
import type { PermissionChoice } from '../../src/core/permissions/types';
import type { ChatItem } from '../../src/shared/chatProtocol';
import { linkedTo, TestTransportFactory } from './memoryTransports';
import { ScriptedPrompter } from './permissions';

export type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

/** The HTML every app of these servers is. */
export const APP_HTML = '<html><body>clock</body></html>';

const ui = (resourceUri: string, visibility?: string[]) => ({ ui: { resourceUri, ...(visibility ? { visibility } : {}) } });
const passthrough = z.object({}).passthrough();

/**
 * An MCP Apps server in this process. `apps` lists, in this order: `poll` (no UI), `show` (a UI,
 * answers its arguments with structured content), `model_only`, `app_only`, `fails` (the tool's own
 * error, two blocks) and `wait` (until cancelled); it offers `ui://apps/show.html` (a policy with
 * one malformed origin), `ui://apps/plain.html` (no policy) and `ui://apps/slow.html` (answers
 * only when cancelled). `bare` offers no resources, and its own `show`.
 */
export function appsServer(name: 'apps' | 'bare'): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { tools: {}, ...(name === 'apps' ? { resources: {} } : {}) } });
  if (name === 'bare') {
    server.registerTool('show', { description: 'Shows, barely', inputSchema: passthrough, _meta: ui('ui://bare/show.html') }, () => ({ content: [{ type: 'text', text: 'bare show' }] }));
    return server;
  }
  server.registerTool('poll', { description: 'Polls', inputSchema: passthrough }, () => ({ content: [{ type: 'text', text: 'polled' }] }));
  server.registerTool('show', { title: 'Show Time', description: 'Shows the time', inputSchema: passthrough, _meta: ui('ui://apps/show.html') }, (args) => ({
    content: [{ type: 'text', text: `shown ${JSON.stringify(args)}` }],
    structuredContent: { args },
  }));
  server.registerTool('model_only', { description: 'For the model', inputSchema: passthrough, _meta: ui('ui://apps/plain.html', ['model']) }, () => ({ content: [] }));
  server.registerTool('app_only', { description: 'For apps', inputSchema: passthrough, _meta: ui('ui://apps/plain.html', ['app']) }, () => ({ content: [] }));
  server.registerTool('fails', { description: 'Fails', inputSchema: passthrough }, () => ({
    content: [{ type: 'text', text: 'it broke' }, { type: 'text', text: 'at step 2' }],
    isError: true,
  }));
  server.registerTool('wait', { description: 'Waits until cancelled', inputSchema: passthrough }, (_args, ctx) => untilAborted(ctx.mcpReq.signal, { content: [{ type: 'text', text: 'cancelled' }] }));
  const policy = { ui: { csp: { connectDomains: ['https://api.example.com', 'not an origin'] }, permissions: { clipboardWrite: {} }, prefersBorder: false } };
  server.registerResource('show', 'ui://apps/show.html', { mimeType: UI_MIME_TYPE }, (uri) => ({ contents: [{ uri: uri.href, mimeType: UI_MIME_TYPE, text: APP_HTML, _meta: policy }] }));
  server.registerResource('plain', 'ui://apps/plain.html', { mimeType: UI_MIME_TYPE }, (uri) => ({ contents: [{ uri: uri.href, mimeType: UI_MIME_TYPE, text: APP_HTML }] }));
  server.registerResource('slow', 'ui://apps/slow.html', { mimeType: UI_MIME_TYPE }, (uri, ctx) => untilAborted(ctx.mcpReq.signal, { contents: [{ uri: uri.href, text: 'late' }] }));
  return server;
}

function untilAborted<T>(signal: AbortSignal, value: T): Promise<T> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(value), { once: true }));
}

/**
 * A harness (not started) with the servers `apps` and `bare` (see {@link appsServer}) in memory.
 * After `holdStarts()`, each new connection waits to start until `release()`.
 */
export function appsHarness(options: HarnessOptions = {}) {
  let hold: Promise<void> | undefined;
  let release: () => void = () => undefined;
  const servers: Array<{ name: string; server: McpServer }> = [];
  const entries = { apps: { command: 'apps' }, bare: { command: 'bare' } };
  const harness = new McpHarness({
    env: {},
    userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries },
    reconnectDelaysMs: [],
    createTransports: (launch) =>
      new TestTransportFactory({
        kind: launch.type,
        make: () => {
          const server = appsServer(launch.command as 'apps' | 'bare');
          servers.push({ name: launch.command!, server });
          const transport = linkedTo(server);
          const start = transport.start.bind(transport);
          const waitFor = hold;
          transport.start = async () => (await waitFor, start());
          return transport;
        },
      }),
    ...options,
  });
  return {
    harness,
    /** The live SDK server of the latest connection to `name`. */
    last: (name: 'apps' | 'bare') => servers.filter((s) => s.name === name).at(-1)!.server,
    /** Makes the next connections wait until {@link release}. */
    holdStarts() {
      hold = new Promise<void>((r) => (release = r));
    },
    release: () => {
      hold = undefined;
      release();
    },
  };
}

/** The chat an app lives in, as plain records: its cards by id, and what the apps sent it. */
export class RecordedAppChat implements IChatAppsSession {
  readonly items = new Map<string, ChatItem>();
  readonly events: AgentEvent[] = [];
  readonly messages: Array<{ text: string; from: string }> = [];
  readonly contexts: Array<{ key: string; label: string; text: string }> = [];

  /** Adds a done card of `apps`'s `show` with its app, changed by `patch`. */
  card(id: string, patch: Partial<ToolItem> = {}): ToolItem {
    const item: ToolItem = {
      id,
      kind: 'tool',
      toolName: 'mcp__apps__show',
      server: 'apps',
      tool: 'show',
      title: 'Show Time',
      arguments: { city: 'Oslo' },
      state: 'done',
      app: { resourceUri: 'ui://apps/show.html', result: { content: [{ type: 'text', text: 'shown' }] } },
      ...patch,
    };
    this.items.set(id, item);
    return item;
  }

  item(id: string): ChatItem | undefined {
    return this.items.get(id);
  }

  conversationId(): string {
    return 'conversation-1';
  }

  callEvent(event: AgentEvent): void {
    this.events.push(event);
  }

  message(text: string, from: string): void {
    this.messages.push({ text, from });
  }

  context(key: string, label: string, text: string): void {
    this.contexts.push({ key, label, text });
  }
}

/** Where the rig's host says the sandbox page is. */
export const SANDBOX_URL = 'http://127.0.0.1:9/sandbox';

/**
 * {@link ChatApps} over {@link appsHarness} and a {@link RecordedAppChat}, behind a real permission
 * gate: `rules` are its rules and `answer` what the person answers on a card. The host records
 * the links it is asked to open (and answers `agree`); disposed when the test ends.
 */
export function appsRig(harnessOptions: HarnessOptions = {}) {
  const h = appsHarness(harnessOptions);
  const chat = new RecordedAppChat();
  const rig = {
    ...h,
    chat,
    rules: {} as PermissionRules,
    answer: 'once' as PermissionChoice,
    agree: true,
    links: [] as Array<{ url: string; app: string }>,
    logs: [] as string[],
    audited: [] as AuditStart[],
  };
  const prompter = new ScriptedPrompter(() => ({ choice: rig.answer }));
  const apps = new ChatApps(
    {
      servers: h.harness,
      host: { sandboxUrl: async () => SANDBOX_URL, openLink: async (url, app) => (rig.links.push({ url, app }), rig.agree) },
      call: (request, options) => h.harness.call(request, options),
      decider: new PermissionGate({ prompter, rules: () => rig.rules }),
      audit: { start: (entry) => String(rig.audited.push(entry)), end: () => undefined, denied: () => undefined },
      log: (line) => rig.logs.push(line),
    },
    chat,
  );
  onTestFinished(async () => {
    apps.dispose();
    await h.harness.dispose();
  });
  return Object.assign(rig, { prompter, apps });
}
