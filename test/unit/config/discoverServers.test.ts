import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeOrigin,
  discoverServers,
  discoveryLocations,
  formatConfigError,
  loadMcpConfig,
  serverEntryFor,
  type McpServerDefinition,
} from '../../../src/core/config';
import { TempDir } from './tempDir';

let tmp: TempDir;
let home: string;
beforeEach(() => {
  tmp = new TempDir();
  home = tmp.mkdir('home');
});
afterEach(() => {
  tmp.dispose();
});

const linux = () => ({ home, platform: 'linux' as const, env: {} });

function brief(defs: readonly McpServerDefinition[]) {
  return defs.map((d) => ({
    name: d.name,
    source: d.origin.source,
    line: d.origin.line,
    launch: d.command ?? d.url,
    also: (d.origin.alsoIn ?? []).map((o) => `${o.source}:${o.line}`),
  }));
}

describe('discoveryLocations', () => {
  it('names each agent file for Linux, macOS and Windows', () => {
    const files = (platform: NodeJS.Platform, env: Record<string, string> = {}) =>
      discoveryLocations({ home: platform === 'win32' ? 'C:\\Users\\u' : '/home/u', platform, env }).map((l) => [l.source, l.file]);
    expect(files('linux')).toEqual([
      ['vscode-user', '/home/u/.config/Code/User/mcp.json'],
      ['claude-code', '/home/u/.claude.json'],
      ['claude-desktop', '/home/u/.config/Claude/claude_desktop_config.json'],
      ['cursor', '/home/u/.cursor/mcp.json'],
    ]);
    expect(files('linux', { XDG_CONFIG_HOME: '/xdg' })[2][1]).toBe('/xdg/Claude/claude_desktop_config.json');
    expect(files('darwin')[2][1]).toBe('/home/u/Library/Application Support/Claude/claude_desktop_config.json');
    expect(files('darwin')[0][1]).toBe('/home/u/Library/Application Support/Code/User/mcp.json');
    expect(files('win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' })[2][1]).toBe('C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
    expect(files('win32')[3][1]).toBe('C:\\Users\\u\\.cursor\\mcp.json');
  });

  it('uses the profile folder the host names, or none', () => {
    expect(discoveryLocations({ ...linux(), vscodeUserFolder: '/p/User/profiles/abc' })[0].file).toBe('/p/User/profiles/abc/mcp.json');
    expect(discoveryLocations({ ...linux(), vscodeUserFolder: false }).map((l) => l.source)).not.toContain('vscode-user');
  });
});

describe('discoverServers', () => {
  it('reads every format from real files in a home folder, with file and line', async () => {
    const project = tmp.mkdir('work/app');
    tmp.write(
      'home/.claude.json',
      JSON.stringify(
        {
          numStartups: 4,
          mcpServers: { memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } },
          projects: {
            [project]: { mcpServers: { docs: { type: 'http', url: 'https://docs.example/mcp' } } },
            '/elsewhere': { mcpServers: { other: { command: 'other' } } },
          },
        },
        null,
        2,
      ),
    );
    tmp.write(
      'home/.config/Claude/claude_desktop_config.json',
      `{
  // Claude Desktop tolerates no comments, but people write them anyway
  "mcpServers": {
    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/u"] },
  }
}
`,
    );
    tmp.write('home/.cursor/mcp.json', '{ "mcpServers": { "remote": { "url": "https://cursor.example/sse", "headers": { "Authorization": "Bearer ${env:TOKEN}" } } } }');
    tmp.write(
      'home/.config/Code/User/mcp.json',
      `{
  "inputs": [{ "id": "key", "type": "promptString", "password": true, "description": "API key" }],
  "servers": {
    "search": { "type": "stdio", "command": "search-mcp", "env": { "KEY": "\${input:key}" } }
  }
}`,
    );
    const result = await discoverServers({ ...linux(), workspaceFolders: [project] });
    expect(result.errors).toEqual([]);
    expect(brief(result.servers)).toEqual([
      { name: 'search', source: 'vscode-user', line: 4, launch: 'search-mcp', also: [] },
      { name: 'memory', source: 'claude-code', line: 4, launch: 'npx', also: [] },
      { name: 'docs', source: 'claude-code', line: 16, launch: 'https://docs.example/mcp', also: [] },
      { name: 'files', source: 'claude-desktop', line: 4, launch: 'npx', also: [] },
      { name: 'remote', source: 'cursor', line: 1, launch: 'https://cursor.example/sse', also: [] },
    ]);
    const docs = result.servers[2];
    expect(docs.origin.jsonPath).toBe(`projects[${JSON.stringify(project)}].mcpServers.docs`);
    expect(docs.type).toBe('http');
    expect(result.servers[0].inputs.map((i) => i.id)).toEqual(['key']);
    // Variables stay as written: they are resolved at start like any other entry's.
    expect(result.servers[0].env).toEqual({ KEY: '${input:key}' });
    expect(result.servers[4].headers).toEqual({ Authorization: 'Bearer ${env:TOKEN}' });
    expect(describeOrigin(result.servers[3].origin, home)).toBe('Claude Desktop ~/.config/Claude/claude_desktop_config.json:4');
  });

  it('finds nothing, without errors, in an empty home', async () => {
    const result = await discoverServers(linux());
    expect(result.servers).toEqual([]);
    expect(result.errors).toEqual([]);
  });

  it('reports a broken file and a broken entry naming the file and field, and still reads the rest', async () => {
    const desktop = tmp.write('home/.config/Claude/claude_desktop_config.json', '{ "mcpServers": { "a": { "command": "a" }, ');
    const cursor = tmp.write(
      'home/.cursor/mcp.json',
      JSON.stringify({ mcpServers: { bad: { command: 'x', args: [1] }, typo: { comand: 'y' }, good: { command: 'good' } } }, null, 2),
    );
    tmp.write('home/.claude.json', JSON.stringify({ mcpServers: 'not a map' }));
    const result = await discoverServers(linux());
    const messages = result.errors.map((e) => formatConfigError(e));
    expect(messages).toEqual([
      `${tmp.path('home/.claude.json')}:1:15: mcpServers: expected object, got string`,
      expect.stringMatching(new RegExp(`^${escape(desktop)}:1:\\d+: syntax error: `)),
      `${cursor}:6:9: mcpServers.bad.args[0]: expected string, got number`,
      `${cursor}:9:5: mcpServers.typo: needs "command" (stdio) or "url" (http/sse)`,
    ]);
    expect(result.servers.map((s) => [s.name, s.problem === undefined])).toEqual([
      ['bad', false],
      ['typo', false],
      ['good', true],
    ]);
  });

  it('shows the same command or URL from two files once, with both origins', async () => {
    const entry = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] };
    tmp.write('home/.claude.json', JSON.stringify({ mcpServers: { memory: { type: 'stdio', ...entry } } }));
    tmp.write('home/.cursor/mcp.json', JSON.stringify({ mcpServers: { 'memory-too': entry, other: { ...entry, args: ['other'] } } }));
    const result = await discoverServers(linux());
    expect(brief(result.servers)).toEqual([
      { name: 'memory', source: 'claude-code', line: 1, launch: 'npx', also: ['cursor:1'] },
      { name: 'other', source: 'cursor', line: 1, launch: 'npx', also: [] },
    ]);
  });

  it('writes back an entry that reads the same in our formats', () => {
    const def = { name: 'x', type: 'stdio', command: 'c', args: ['a'], env: { K: '${env:K}' }, headers: {}, disabled: false, inputs: [] } as unknown as McpServerDefinition;
    expect(serverEntryFor(def)).toEqual({ command: 'c', args: ['a'], env: { K: '${env:K}' } });
    const http = { name: 'y', type: 'sse', url: 'https://h/sse', args: [], env: {}, headers: { A: 'b' }, disabled: false, inputs: [] } as unknown as McpServerDefinition;
    expect(serverEntryFor(http)).toEqual({ type: 'sse', url: 'https://h/sse', headers: { A: 'b' } });
  });
});

describe('loadMcpConfig with discovery', () => {
  it('adds discovered servers last, folds duplicates into the configured one and never lets one take a name', async () => {
    const ws = tmp.mkdir('ws');
    tmp.write('ws/.vscode/mcp.json', JSON.stringify({ servers: { mem: { command: 'npx', args: ['mem'] }, github: { command: 'gh-mcp' } } }));
    tmp.write(
      'home/.cursor/mcp.json',
      JSON.stringify({ mcpServers: { memory: { command: 'npx', args: ['mem'] }, github: { command: 'other-gh' }, fresh: { command: 'fresh' } } }, null, 2),
    );
    const plain = await loadMcpConfig({ workspaceFolders: [ws] });
    expect(plain.servers.map((s) => s.name)).toEqual(['mem', 'github']);
    const result = await loadMcpConfig({
      workspaceFolders: [ws],
      discover: linux(),
      providedServers: [{ source: 'extension', label: 'extension acme.tools', jsonPath: 'acme.tools', entries: { 'acme.tools:lint': { command: 'lint-mcp' } } }],
    });
    expect(brief(result.servers)).toEqual([
      { name: 'mem', source: 'vscode', line: 1, launch: 'npx', also: ['cursor:3'] },
      { name: 'github', source: 'vscode', line: 1, launch: 'gh-mcp', also: [] },
      { name: 'acme.tools:lint', source: 'extension', line: undefined, launch: 'lint-mcp', also: [] },
      { name: 'fresh', source: 'cursor', line: 12, launch: 'fresh', also: [] },
    ]);
    expect(result.errors).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('a supplementary list (VS Code\'s own list of servers)', () => {
  it('adds only servers known nowhere else, without folding them in as origins', async () => {
    const ws = tmp.mkdir('ws');
    tmp.write('ws/.vscode/mcp.json', JSON.stringify({ servers: { mem: { command: 'npx', args: ['mem'] } } }));
    const result = await loadMcpConfig({
      workspaceFolders: [ws],
      discover: { ...linux(), sources: [] },
      providedServers: [
        {
          source: 'extension',
          label: 'VS Code MCP servers',
          jsonPath: 'vscode.lm.mcpServerDefinitions',
          supplementary: true,
          entries: { mem: { command: 'other' }, 'mem-again': { command: 'npx', args: ['mem'] }, only: { type: 'http', url: 'https://only.example/mcp' } },
        },
      ],
    });
    expect(brief(result.servers)).toEqual([
      { name: 'mem', source: 'vscode', line: 1, launch: 'npx', also: [] },
      { name: 'only', source: 'extension', line: undefined, launch: 'https://only.example/mcp', also: [] },
    ]);
  });
});

describe('our own gateway', () => {
  it('is never discovered from a file it was pasted into', async () => {
    const cli = '/home/u/.vscode/extensions/mcp-harness.mcp-harness-0.1.0/dist/cli.js';
    tmp.write(
      'home/.config/Claude/claude_desktop_config.json',
      JSON.stringify({ mcpServers: { 'mcp-harness': { command: 'node', args: [cli, 'serve', '--gateway', '--workspace', '/w'] }, other: { command: 'node', args: ['serve', '--gateway'] } } }),
    );
    const result = await discoverServers(linux());
    expect(result.servers.map((s) => s.name)).toEqual(['other']);
  });
});
