import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { onTestFinished } from 'vitest';
import * as z from 'zod/v4';
import type { McpResolvedLaunch } from '../../src/core/config/launchTypes';
import type { McpLogEntry } from '../../src/core/mcp/McpServerSnapshot';
import { McpHarness } from '../../src/core/McpHarness';
import type { HarnessOptions } from '../../src/core/HarnessTypes';
import { linkedTo, TestTransportFactory } from './memoryTransports';

/** What the in-memory server a command names can do; every server has `echo`. */
export interface MemoryServerSpec {
  /** More tools: name to the text they answer (or a function of their arguments). */
  readonly tools?: Readonly<Record<string, string | ((args: Record<string, unknown>) => string)>>;
  /** More tools that only an MCP App may call (`_meta.ui.visibility: ["app"]`). */
  readonly appOnlyTools?: readonly string[];
  /** Offers `note://<name>` resources, a `note://{id}` template with completions, and a `greet` prompt. */
  readonly content?: boolean;
  /** Offers logging (and records the levels it is asked to log from). */
  readonly logging?: boolean;
  /** With logging: refuses every level it is asked for. */
  readonly loggingFails?: boolean;
}

/** One in-memory server process: the live SDK server and what it saw. */
export interface MemoryServer {
  readonly command: string;
  readonly server: McpServer;
  readonly levels: string[];
  readonly calls: string[];
}

/**
 * A harness whose stdio servers run in this process: the `command` of an entry names a spec in
 * `specs`, and each start makes a fresh SDK server for it over a linked in-memory pair. Entries
 * come from the host's own settings (`userServers`), so no file is read.
 */
export function memoryHarness(entries: Record<string, object>, specs: Record<string, MemoryServerSpec> = {}, options: HarnessOptions = {}) {
  const started: MemoryServer[] = [];
  const launches: McpResolvedLaunch[] = [];
  const harness = new McpHarness({
    userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries },
    env: {},
    reconnectDelaysMs: [],
    createTransports: (launch) => {
      launches.push(launch);
      return new TestTransportFactory({
        kind: launch.type,
        make: () => {
          const command = launch.command ?? new URL(launch.url!).hostname;
          const spec = specs[command];
          if (!spec) throw new Error(`spawn ${command} ENOENT`);
          const s = memoryServer(command, spec);
          started.push(s);
          return linkedTo(s.server);
        },
      });
    },
    ...options,
  });
  return { harness, started, launches, last: (command: string) => started.filter((s) => s.command === command).at(-1)! };
}

/**
 * `memoryHarness` inside a test: the harness is disposed when the test ends, and every log entry it
 * writes is kept in `logs`.
 */
export function harnessRig(...args: Parameters<typeof memoryHarness>) {
  const r = memoryHarness(...args);
  onTestFinished(() => r.harness.dispose());
  const logs: McpLogEntry[] = [];
  r.harness.onDidLog((e) => logs.push(e));
  return { ...r, logs };
}

function memoryServer(command: string, spec: MemoryServerSpec): MemoryServer {
  const capabilities = { tools: { listChanged: true }, ...(spec.logging ? { logging: {} } : {}), ...(spec.content ? { resources: { subscribe: true, listChanged: true }, prompts: {}, completions: {} } : {}) };
  const server = new McpServer({ name: command, version: '1.0.0' }, { capabilities });
  const levels: string[] = [];
  const calls: string[] = [];
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) }, ({ text }) => {
    calls.push(`echo ${text}`);
    return { content: [{ type: 'text', text }] };
  });
  for (const [name, answer] of Object.entries(spec.tools ?? {})) {
    server.registerTool(name, { description: `The ${name} tool`, inputSchema: z.object({}).passthrough() }, (args) => {
      calls.push(name);
      return { content: [{ type: 'text', text: typeof answer === 'string' ? answer : answer(args as Record<string, unknown>) }] };
    });
  }
  for (const name of spec.appOnlyTools ?? []) {
    server.registerTool(name, { description: `The ${name} tool, for apps`, inputSchema: z.object({}).passthrough(), _meta: { ui: { visibility: ['app'] } } }, () => {
      calls.push(name);
      return { content: [{ type: 'text', text: `${name} ran` }] };
    });
  }
  if (spec.logging) {
    server.server.setRequestHandler('logging/setLevel', (request) => {
      if (spec.loggingFails) throw new Error(`no level ${request.params.level} here`);
      levels.push(request.params.level);
      return {};
    });
  }
  if (spec.content) {
    server.registerResource('readme', 'note://readme', { mimeType: 'text/plain' }, () => ({ contents: [{ uri: 'note://readme', text: `readme of ${command}` }] }));
    server.registerResource(
      'note',
      new ResourceTemplate('note://{id}', { list: undefined, complete: { id: (value) => ['alpha', 'beta', 'gamma'].filter((v) => v.startsWith(value)) } }),
      { mimeType: 'text/plain' },
      (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)}` }] }),
    );
    server.server.setRequestHandler('resources/subscribe', (request) => {
      calls.push(`subscribe ${request.params.uri}`);
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', (request) => {
      calls.push(`unsubscribe ${request.params.uri}`);
      return {};
    });
    server.registerPrompt('greet', { description: 'Greets', argsSchema: { name: z.string() } }, ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}` } }],
    }));
  }
  return { command, server, levels, calls };
}
