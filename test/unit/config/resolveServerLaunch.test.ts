import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  findUnsetVariables,
  IMcpInputResolver,
  McpInputDefinition,
  McpServerDefinition,
  McpVariableContext,
  parseMcpConfigText,
  resolveServerLaunch,
} from '../../../src/core/config';
import { TempDir } from './tempDir';

let tmp: TempDir;
beforeEach(() => {
  tmp = new TempDir();
});
afterEach(() => {
  tmp.dispose();
});

const HOME = '/home/me';

/** Parses one VS Code style server entry as if it were in `<folder>/.vscode/mcp.json`. */
function serverDef(entry: object, options: { folder?: string | null; inputs?: object[] } = {}): McpServerDefinition {
  const folder = options.folder === null ? undefined : (options.folder ?? tmp.root);
  const file = path.join(folder ?? tmp.root, '.vscode', 'mcp.json');
  const text = JSON.stringify({ inputs: options.inputs ?? [], servers: { s: entry } });
  const result = parseMcpConfigText(text, file, 'vscode', folder);
  expect(result.errors).toEqual([]);
  return result.servers[0];
}

/** A resolver test double that answers from a table and counts questions. */
class FakeInputResolver implements IMcpInputResolver {
  readonly asked: string[] = [];
  constructor(private readonly _answers: Record<string, string | undefined>) {}
  async resolveInput(input: McpInputDefinition, server: string): Promise<string | undefined> {
    this.asked.push(`${server}:${input.id}`);
    return this._answers[input.id];
  }
}

function ctx(env: Record<string, string | undefined> = {}, extra: Partial<McpVariableContext> = {}): McpVariableContext {
  return { env, userHome: HOME, ...extra };
}

async function launchOf(def: McpServerDefinition, context: McpVariableContext) {
  const result = await resolveServerLaunch(def, context);
  if (!result.ok) {
    throw new Error(`unexpected error: ${result.error}`);
  }
  return result.value;
}

async function errorOf(def: McpServerDefinition, context: McpVariableContext): Promise<string> {
  const result = await resolveServerLaunch(def, context);
  expect(result.ok).toBe(false);
  return result.ok ? '' : result.error;
}

describe('resolveServerLaunch: variables', () => {
  it('substitutes every variable form in every stdio field', async () => {
    const def = serverDef({
      command: '${TOOL_DIR}/bin/srv',
      args: [
        '--home=${userHome}',
        '--ws=${workspaceFolder}',
        '${env:MODE}',
        '${MISSING:-fallback}',
        '${EMPTY:-dflt}',
        '${MODE:-slow}',
        '${env:MISSING:-d2}',
      ],
      env: { TOKEN: '${GITHUB_TOKEN}', LITERAL: 'cost $5 and ${unclosed', EMPTY_BUT_SET: '${EMPTY}' },
      cwd: '${workspaceFolder}/sub',
    });
    const launch = await launchOf(def, ctx({ TOOL_DIR: '/opt', MODE: 'fast', GITHUB_TOKEN: 'ghp_x', EMPTY: '' }));
    expect(launch).toEqual({
      type: 'stdio',
      command: '/opt/bin/srv',
      args: [`--home=${HOME}`, `--ws=${tmp.root}`, 'fast', 'fallback', 'dflt', 'fast', 'd2'],
      env: { TOKEN: 'ghp_x', LITERAL: 'cost $5 and ${unclosed', EMPTY_BUT_SET: '' },
      cwd: path.join(tmp.root, 'sub'),
      headers: {},
      // What came from the environment, to be masked wherever it is quoted; defaults and folders are not secrets.
      secretValues: ['ghp_x', '/opt', 'fast'],
    });
  });

  it('substitutes url and header values of a remote server and ignores process fields', async () => {
    const def = serverDef({
      url: 'https://${HOST}/mcp',
      headers: { Authorization: 'Bearer ${API_TOKEN}' },
      env: { X: '${NOT_SET}' },
    });
    const launch = await launchOf(def, ctx({ HOST: 'example.com', API_TOKEN: 'secret' }));
    expect(launch).toEqual({
      type: 'http',
      url: 'https://example.com/mcp',
      args: [],
      env: {},
      headers: { Authorization: 'Bearer secret' },
      secretValues: ['example.com', 'secret'],
    });
  });

  it('reports an unset variable without a default, naming the field and never the values', async () => {
    const def = serverDef({ command: 'srv', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', OTHER: '${SECRET_SET}' } });
    const error = await errorOf(def, ctx({ SECRET_SET: 'hunter2' }));
    expect(error).toBe('env var GITHUB_TOKEN is not set (used in env.GITHUB_TOKEN)');
  });

  it('reports every static problem at once', async () => {
    const def = serverDef({ command: '${A}', args: ['${env:B}', '${config:editor.x}'] });
    expect((await errorOf(def, ctx())).split('; ')).toEqual([
      'env var A is not set (used in command)',
      'env var B is not set (used in args[0])',
      'unsupported variable ${config:editor.x} (used in args[1])',
    ]);
  });

  it('reports ${workspaceFolder} when no folder is open', async () => {
    const def = serverDef({ command: 'srv', cwd: '${workspaceFolder}' }, { folder: null });
    expect(await errorOf(def, ctx())).toBe('${workspaceFolder} used but no workspace folder is open (used in cwd)');
  });

  it('finds unset variables for a doctor report', () => {
    const def = serverDef({
      command: '${A}',
      args: ['${B:-x}', '${env:C}', '${A}', '${SET}'],
      env: { D: '${D}' },
      headers: { H: '${HEADER_ONLY}' },
    });
    expect(findUnsetVariables(def, { SET: '1' })).toEqual(['A', 'C', 'D']);
    expect(findUnsetVariables(def, { A: '1', C: '', D: '1', SET: 'x' })).toEqual([]);
  });

  it('refuses a definition with a problem', async () => {
    const file = path.join(tmp.root, '.mcp.json');
    const [def] = parseMcpConfigText('{"mcpServers": {"ws": {"type": "websocket", "url": "x"}}}', file, 'claude').servers;
    expect(await errorOf(def, ctx())).toBe('unsupported transport type "websocket" (expected stdio, http or sse)');
  });
});

describe('resolveServerLaunch: inputs', () => {
  const inputs = [
    { type: 'promptString', id: 'api-key', description: 'API key', password: true },
    { type: 'promptString', id: 'unused' },
  ];

  it('asks for each input once even when used several times', async () => {
    const def = serverDef(
      { url: 'https://h/${input:api-key}', headers: { A: '${input:api-key}', B: 'x-${input:api-key}' } },
      { inputs },
    );
    const resolver = new FakeInputResolver({ 'api-key': 'k1' });
    const launch = await launchOf(def, ctx({}, { inputResolver: resolver }));
    expect(launch.url).toBe('https://h/k1');
    expect(launch.headers).toEqual({ A: 'k1', B: 'x-k1' });
    expect(resolver.asked).toEqual(['s:api-key']);
  });

  it('reports a cancelled input', async () => {
    const def = serverDef({ command: 'srv', env: { KEY: '${input:api-key}' } }, { inputs });
    const resolver = new FakeInputResolver({});
    expect(await errorOf(def, ctx({}, { inputResolver: resolver }))).toBe('input "api-key" was not provided (used in env.KEY)');
  });

  it('reports an undeclared input without prompting', async () => {
    const def = serverDef({ command: 'srv', args: ['${input:x}', '${input:api-key}'] }, { inputs });
    const resolver = new FakeInputResolver({ 'api-key': 'k' });
    expect(await errorOf(def, ctx({}, { inputResolver: resolver }))).toBe(
      'unknown input "x" (declare it under "inputs") (used in args[0])',
    );
    expect(resolver.asked).toEqual([]);
  });

  it('reports an input when there is no editor to ask', async () => {
    const def = serverDef({ command: 'srv', args: ['${input:api-key}'] }, { inputs });
    expect(await errorOf(def, ctx())).toBe('input "api-key" needs an editor to prompt for it (used in args[0])');
  });

  it('reports a resolver failure as a value', async () => {
    const def = serverDef({ command: 'srv', args: ['${input:api-key}'] }, { inputs });
    const resolver: IMcpInputResolver = { resolveInput: () => Promise.reject(new Error('secret storage unavailable')) };
    expect(await errorOf(def, ctx({}, { inputResolver: resolver }))).toBe(
      'input "api-key" could not be read: secret storage unavailable (used in args[0])',
    );
  });
});

describe('resolveServerLaunch: envFile and cwd', () => {
  it('reads a dotenv file relative to the workspace folder; env entries win', async () => {
    tmp.write(
      'config/.env',
      [
        '# comment',
        '',
        'PLAIN=value # trailing comment',
        'export EXPORTED=yes',
        "SINGLE='a # not a comment \\n'",
        'DOUBLE="line1\\nline2 \\"q\\""',
        'OVERRIDDEN=from-file',
        'not an assignment',
      ].join('\n'),
    );
    const def = serverDef({ command: 'srv', envFile: 'config/.env', env: { OVERRIDDEN: 'from-env' } });
    const launch = await launchOf(def, ctx());
    expect(launch.env).toEqual({
      PLAIN: 'value',
      EXPORTED: 'yes',
      SINGLE: 'a # not a comment \\n',
      DOUBLE: 'line1\nline2 "q"',
      OVERRIDDEN: 'from-env',
    });
  });

  it('substitutes variables in envFile before reading it', async () => {
    const file = tmp.write('secrets/app.env', 'K=v\n');
    const def = serverDef({ command: 'srv', envFile: '${SECRETS}/app.env' });
    const launch = await launchOf(def, ctx({ SECRETS: path.dirname(file) }));
    expect(launch.env).toEqual({ K: 'v' });
  });

  it('reports a missing envFile naming the path', async () => {
    const def = serverDef({ command: 'srv', envFile: '.env.missing' });
    expect(await errorOf(def, ctx())).toBe(`envFile not found: ${path.join(tmp.root, '.env.missing')}`);
  });

  it('resolves relative envFile and cwd against the config file folder when no folder is open', async () => {
    tmp.write('.vscode/local.env', 'A=1');
    const def = serverDef({ command: 'srv', envFile: 'local.env', cwd: '..' }, { folder: null });
    const launch = await launchOf(def, ctx());
    expect(launch.env).toEqual({ A: '1' });
    expect(launch.cwd).toBe(tmp.root);
  });

  it('defaults cwd to the workspace folder, else leaves it unset', async () => {
    expect((await launchOf(serverDef({ command: 'srv' }), ctx())).cwd).toBe(tmp.root);
    expect((await launchOf(serverDef({ command: 'srv' }, { folder: null }), ctx())).cwd).toBeUndefined();
    expect((await launchOf(serverDef({ command: 'srv', cwd: '/abs/dir' }), ctx())).cwd).toBe(path.normalize('/abs/dir'));
    expect((await launchOf(serverDef({ command: 'srv', cwd: 'rel' }), ctx())).cwd).toBe(path.join(tmp.root, 'rel'));
  });

  it('needs a folder for a relative path in a host-supplied entry', async () => {
    const def: McpServerDefinition = {
      ...serverDef({ command: 'srv', cwd: '${SUB}' }, { folder: null }),
      origin: { source: 'user', file: 'settings.json', jsonPath: 'mcpHarness.servers.s' },
    };
    expect(await errorOf(def, ctx({ SUB: 'private-name' }))).toBe('relative cwd "${SUB}" needs a workspace folder to resolve against');
  });

  it('uses an injected readFile for envFile', async () => {
    const def = serverDef({ command: 'srv', envFile: '/virtual/.env' });
    const launch = await launchOf(def, ctx({}, { readFile: async () => 'V=1' }));
    expect(launch.env).toEqual({ V: '1' });
  });
});

describe('resolveServerLaunch: less common paths', () => {
  it('refuses a definition without a transport that carries no problem', async () => {
    const def: McpServerDefinition = { ...serverDef({ command: 'srv' }), type: undefined };
    expect(await resolveServerLaunch(def, ctx())).toEqual({ ok: false, error: 'no transport type' });
  });

  it('leaves a missing url or command out rather than substituting it', async () => {
    const remote: McpServerDefinition = { ...serverDef({ url: 'http://127.0.0.1:1/' }), url: undefined };
    expect(await launchOf(remote, ctx())).toStrictEqual({ type: 'http', url: undefined, args: [], env: {}, headers: {}, secretValues: [] });
    const local: McpServerDefinition = { ...serverDef({ command: 'srv' }), command: undefined };
    expect((await launchOf(local, ctx())).command).toBeUndefined();
  });

  it('normalizes an absolute cwd made by a variable', async () => {
    const def = serverDef({ command: 'srv', cwd: '${ROOT}/a/../b' });
    expect((await launchOf(def, ctx({ ROOT: '/srv' }))).cwd).toBe(path.normalize('/srv/b'));
  });

  it('needs a folder for a relative envFile, naming the field', async () => {
    const def: McpServerDefinition = {
      ...serverDef({ command: 'srv', envFile: 'local.env' }, { folder: null }),
      origin: { source: 'user', file: 'settings.json', jsonPath: 'mcpHarness.servers.s' },
    };
    expect(await errorOf(def, ctx())).toBe('relative envFile "local.env" needs a workspace folder to resolve against');
  });

  it('reports an envFile that cannot be read by its error code, or by what was thrown', async () => {
    tmp.mkdir('env-dir');
    const dir = serverDef({ command: 'srv', envFile: 'env-dir' });
    expect(await errorOf(dir, ctx())).toBe(`cannot read envFile ${path.join(tmp.root, 'env-dir')} (EISDIR)`);
    tmp.write('plain-file', 'x');
    const underFile = serverDef({ command: 'srv', envFile: 'plain-file/.env' });
    expect(await errorOf(underFile, ctx())).toBe(`envFile not found: ${path.join(tmp.root, 'plain-file', '.env')}`);
    const def = serverDef({ command: 'srv', envFile: '/virtual/.env' });
    const failing = (thrown: unknown) => ctx({}, { readFile: () => Promise.reject(thrown) });
    expect(await errorOf(def, failing(new Error('vault locked')))).toBe('cannot read envFile /virtual/.env (vault locked)');
    expect(await errorOf(def, failing('denied'))).toBe('cannot read envFile /virtual/.env (denied)');
    expect(await errorOf(def, failing(null))).toBe('cannot read envFile /virtual/.env (null)');
    expect(await errorOf(def, failing({ code: 'EACCES' }))).toBe('cannot read envFile /virtual/.env (EACCES)');
  });

  it('names the field of every kind in errors', async () => {
    const stdio = serverDef({ command: 'srv', envFile: '${NO_FILE}' });
    expect(await errorOf(stdio, ctx())).toBe('env var NO_FILE is not set (used in envFile)');
    const remote = serverDef({ url: 'http://${NO_HOST}/', headers: { 'X-Key': '${NO_KEY}' } });
    expect((await errorOf(remote, ctx())).split('; ')).toEqual([
      'env var NO_HOST is not set (used in url)',
      'env var NO_KEY is not set (used in headers["X-Key"])',
    ]);
  });

  it('treats inherited object members as unset variables', async () => {
    const def = serverDef({ command: 'srv', args: ['${constructor}', '${env:toString}'] });
    expect((await errorOf(def, ctx())).split('; ')).toEqual([
      'env var constructor is not set (used in args[0])',
      'env var toString is not set (used in args[1])',
    ]);
    expect(findUnsetVariables(def, {})).toEqual(['constructor', 'toString']);
  });

  it('names the first field that uses an input it could not get', async () => {
    const inputs = [{ id: 'key', type: 'promptString' }];
    const def = serverDef({ command: 'srv', args: ['${input:key}'], env: { KEY: '${input:key}' } }, { inputs });
    const resolver = new FakeInputResolver({});
    expect(await errorOf(def, ctx({}, { inputResolver: resolver }))).toBe('input "key" was not provided (used in args[0])');
    expect(resolver.asked).toEqual(['s:key']);
  });

  it('uses a default only when the variable is unset or empty', async () => {
    const def = serverDef({ command: 'srv', args: ['${A:-d}', '${B:-d}', '${C:-d}'] });
    expect((await launchOf(def, ctx({ A: 'set', B: '' }))).args).toEqual(['set', 'd', 'd']);
  });

  it('finds only unset environment variables, among text and other variables', () => {
    const inputs = [{ id: 'k', type: 'promptString' }];
    const def = serverDef({ command: 'srv', args: ['plain', 'a${A}b', '${input:k}', '${workspaceFolder}', '${userHome}', '${B:-x}'] }, { inputs });
    expect(findUnsetVariables(def, {})).toEqual(['A']);
  });

  it('resolves only the fields of an sse server', async () => {
    const def = serverDef({ type: 'sse', url: 'http://127.0.0.1:1/sse', env: { X: '${NOT_SET}' }, headers: { A: '${H}' } });
    expect(findUnsetVariables(def, {})).toEqual(['H']);
    expect(await launchOf(def, ctx({ H: 'h' }))).toEqual({ type: 'sse', url: 'http://127.0.0.1:1/sse', args: [], env: {}, headers: { A: 'h' }, secretValues: ['h'] });
  });
});
