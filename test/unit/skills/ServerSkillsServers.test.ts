import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerSkills, SKILLS_EXTENSION, SkillRefusedError, toHarnessSkill, type ISkillsConnection } from '../../../src/core/skills/ServerSkills';

const digest = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
const md = (name: string, body = 'Do it.') => `---\nname: ${name}\ndescription: About ${name}\n---\n\n${body}\n`;

function entry(name: string, files: Record<string, string> | undefined) {
  const uri = `skill://${name}/SKILL.md`;
  return {
    uri,
    frontmatter: { name, description: `About ${name}` },
    // A "dynamic" skill publishes no file list.
    resources: files ? Object.entries(files).map(([u, text]) => ({ uri: u, digest: digest(text), size: Buffer.byteLength(text) })) : 'dynamic',
  };
}

interface Peer {
  entries?: unknown[];
  served?: Record<string, string>;
  /** Methods answered with a JSON-RPC error. */
  failing?: string[];
  /** Whether the peer declares the Skills extension. */
  declares?: boolean;
  /** Methods never answered. */
  silent?: string[];
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A hand-written peer for each server: it answers `skills/list`, `skills/get` and `resources/read` as told. */
async function peer(p: Peer): Promise<{ client: SkillsClient; calls: string[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const calls: string[] = [];
  serverSide.onmessage = (message: JSONRPCMessage) => {
    if (!('id' in message) || !('method' in message)) return;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const reply = (result: unknown) => void serverSide.send({ jsonrpc: '2.0', id: message.id, result } as JSONRPCMessage);
    if (message.method !== 'initialize') calls.push(`${message.method}${params.uri ? ` ${String(params.uri)}` : ''}`);
    if (p.silent?.includes(message.method)) return;
    if (p.failing?.includes(message.method)) {
      return void serverSide.send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: `${message.method} broke` } } as JSONRPCMessage);
    }
    switch (message.method) {
      case 'initialize':
        return reply({
          protocolVersion: params.protocolVersion,
          capabilities: { resources: {}, ...(p.declares === false ? {} : { extensions: { [SKILLS_EXTENSION]: {} } }) },
          serverInfo: { name: 'peer', version: '1' },
        });
      case 'skills/list':
        return reply({ skills: p.entries ?? [] });
      case 'skills/get':
        return reply({ skill: (p.entries ?? []).find((e) => (e as { uri: string }).uri === params.uri) ?? entry('fetched', undefined) });
      case 'resources/read':
        return reply({ contents: [{ uri: params.uri, mimeType: 'text/markdown', text: p.served?.[String(params.uri)] ?? '' }] });
      default:
        return reply({});
    }
  };
  await serverSide.start();
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  closers.push(() => client.close());
  return { client: new SkillsClient(client, { skipInvalid: true }), calls };
}

function connection(client: SkillsClient | undefined, state = 'running', declares = true): ISkillsConnection {
  return {
    snapshot: { state: { kind: state }, capabilities: declares ? { extensions: { [SKILLS_EXTENSION]: {} } } : {} },
    skills: async () => {
      if (!client) throw new Error('not connected');
      return client;
    },
  };
}

describe('ServerSkills across servers', () => {
  it('offers the running servers that declare the extension, and lists each, one failure apart', async () => {
    const a = await peer({ entries: [entry('alpha', { 'skill://alpha/SKILL.md': md('alpha') })] });
    const b = await peer({ failing: ['skills/list'] });
    const connections: Record<string, ISkillsConnection> = {
      a: connection(a.client),
      b: connection(b.client),
      stopped: connection(a.client, 'stopped'),
      plain: connection(a.client, 'running', false),
    };
    const skills = new ServerSkills({ servers: () => ['a', 'b', 'stopped', 'plain', 'gone'], connection: (s) => connections[s] });
    expect(skills.offering()).toEqual(['a', 'b']);
    const bare: ISkillsConnection = { snapshot: { state: { kind: 'running' } }, skills: async () => a.client };
    expect(new ServerSkills({ servers: () => ['bare'], connection: () => bare }).offering()).toEqual([]);
    const { skills: listed, problems } = await skills.list();
    expect(listed.map((s) => `${s.server}/${s.name}`)).toEqual(['a/alpha']);
    expect(problems).toEqual([{ server: 'b', message: 'skills/list failed: skills/list broke' }]);
    expect((await skills.list({ server: 'b' })).skills).toEqual([]);
    expect((await skills.list({ server: 'a' })).skills).toHaveLength(1);
    expect(await skills.listServer('gone')).toEqual({ skills: [], problems: [{ server: 'gone', message: 'skills/list failed: no server named "gone"' }] });
  });

  it('describes a listed skill without reading it: SKILL.md first, a pin of the manifest, dynamic when it lists no files', () => {
    const listed = toHarnessSkill('a', entry('alpha', { 'skill://alpha/notes.md': 'n', 'skill://alpha/SKILL.md': md('alpha') }) as never);
    expect(listed).toMatchObject({ server: 'a', name: 'alpha', description: 'About alpha', uri: 'skill://alpha/SKILL.md', dynamic: false });
    expect(listed.files.map((f) => f.uri)).toEqual(['skill://alpha/SKILL.md', 'skill://alpha/notes.md']);
    expect(listed.manifestHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(listed.manifest)).toMatchObject({ uri: 'skill://alpha/SKILL.md' });
    const dynamic = toHarnessSkill('a', entry('live', undefined) as never);
    expect(dynamic).toMatchObject({ dynamic: true, files: [] });
  });
});

describe('ServerSkills loading', () => {
  function one(p: { client: SkillsClient }) {
    return new ServerSkills({ servers: () => ['s'], connection: (s) => (s === 's' ? connection(p.client) : undefined), timeoutMs: 5000 });
  }

  it('reads only SKILL.md of a dynamic skill, unverified', async () => {
    const p = await peer({ entries: [entry('live', undefined)], served: { 'skill://live/SKILL.md': md('live', 'Check the weather.') } });
    const loaded = await one(p).load('s', 'live');
    expect(loaded.instructions).toBe('Check the weather.');
    expect([...loaded.contents.keys()]).toEqual(['skill://live/SKILL.md']);
    expect(p.calls).toEqual(['skills/list', 'resources/read skill://live/SKILL.md']);
  });

  it('finds a skill by its SKILL.md URI, asking skills/get for one the listing does not hold', async () => {
    const listedSkill = entry('alpha', { 'skill://alpha/SKILL.md': md('alpha') });
    const p = await peer({ entries: [listedSkill], served: { 'skill://alpha/SKILL.md': md('alpha'), 'skill://fetched/SKILL.md': md('fetched', 'Fetched.') } });
    expect((await one(p).load('s', 'skill://alpha/SKILL.md')).name).toBe('alpha');
    expect(p.calls.filter((c) => c.startsWith('skills/get'))).toEqual([]);
    const fetched = await one(p).load('s', 'skill://fetched/SKILL.md');
    expect(fetched).toMatchObject({ name: 'fetched', instructions: 'Fetched.' });
    expect(p.calls).toContain('skills/get skill://fetched/SKILL.md');
  });

  it('names what the server offers when asked for a skill it does not have', async () => {
    const p = await peer({ entries: [entry('alpha', { 'skill://alpha/SKILL.md': md('alpha') }), entry('beta', { 'skill://beta/SKILL.md': md('beta') })] });
    await expect(one(p).load('s', 'gamma')).rejects.toMatchObject({ reason: 'unknown', message: 's offers no skill named "gamma" (it offers: alpha, beta)' });
    const empty = await peer({ entries: [] });
    await expect(one(empty).load('s', 'gamma')).rejects.toThrow(/^s offers no skill named "gamma"$/);
  });

  it('says why a skill could not be loaded: no such server, no extension, a failed listing, a failed get, a failed read', async () => {
    const p = await peer({ entries: [entry('alpha', { 'skill://alpha/SKILL.md': md('alpha') })] });
    const refused = await one(p).load('nowhere', 'alpha').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SkillRefusedError);
    expect(refused).toMatchObject({ name: 'SkillRefusedError', server: 'nowhere', skill: '', reason: 'unknown', message: 'no server named "nowhere"' });
    const undeclared = await peer({ declares: false });
    await expect(one(undeclared).load('s', 'alpha')).rejects.toMatchObject({ reason: 'unknown', message: `s offers no skills (it does not declare ${SKILLS_EXTENSION})` });
    const noList = await peer({ failing: ['skills/list'] });
    await expect(one(noList).load('s', 'alpha')).rejects.toMatchObject({ reason: 'unavailable', message: 's: skills/list failed: skills/list broke' });
    const noGet = await peer({ entries: [], failing: ['skills/get'] });
    await expect(one(noGet).load('s', 'skill://x/SKILL.md')).rejects.toMatchObject({ reason: 'unknown', file: 'skill://x/SKILL.md', message: 's: skills/get skill://x/SKILL.md failed: skills/get broke' });
    const noRead = await peer({ entries: [entry('alpha', { 'skill://alpha/SKILL.md': md('alpha') })], failing: ['resources/read'] });
    await expect(one(noRead).load('s', 'alpha')).rejects.toMatchObject({
      reason: 'unavailable',
      file: 'skill://alpha/SKILL.md',
      message: 'skill "alpha" of s was refused: skill://alpha/SKILL.md: could not be read: resources/read broke',
    });
  });

  it('gives the connection and each request its time limit and the signal of its caller', async () => {
    const p = await peer({ entries: [entry('alpha', { 'skill://alpha/SKILL.md': md('alpha') })], served: { 'skill://alpha/SKILL.md': md('alpha') } });
    const asked: unknown[] = [];
    const recording = (timeoutMs?: number) =>
      new ServerSkills({
        servers: () => ['s'],
        connection: () => ({ ...connection(p.client), skills: async (options) => (asked.push(options), p.client) }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
    const signal = new AbortController().signal;
    await recording(1234).load('s', 'alpha', { signal });
    await recording().listServer('s');
    expect(asked).toEqual([{ timeoutMs: 1234, maxTotalTimeoutMs: 1234, signal }, { timeoutMs: 30_000, maxTotalTimeoutMs: 30_000 }]);
  });

  it('stops waiting for a file at its time limit, and when the caller gives up', async () => {
    const p = await peer({ entries: [entry('alpha', { 'skill://alpha/SKILL.md': md('alpha') })], silent: ['resources/read'] });
    const quick = new ServerSkills({ servers: () => ['s'], connection: () => connection(p.client), timeoutMs: 100 });
    await expect(quick.load('s', 'alpha')).rejects.toMatchObject({ reason: 'unavailable', message: expect.stringMatching(/could not be read: .*timed out/i) });
    const controller = new AbortController();
    const pending = one(p).load('s', 'alpha', { signal: controller.signal });
    await expect.poll(() => p.calls.filter((c) => c.startsWith('resources/read')).length).toBe(2);
    controller.abort(new Error('the user stopped'));
    await expect(pending).rejects.toMatchObject({ reason: 'unavailable', message: expect.stringContaining('the user stopped') });
  });

  it('names a refused frontmatter as such', async () => {
    const listed = { ...entry('alpha', { 'skill://alpha/SKILL.md': md('alpha') }), frontmatter: { name: 'alpha', description: 'Something else' } };
    const p = await peer({ entries: [listed], served: { 'skill://alpha/SKILL.md': md('alpha') } });
    await expect(one(p).load('s', 'alpha')).rejects.toMatchObject({ reason: 'frontmatter', message: expect.stringContaining('skill://alpha/SKILL.md: frontmatter does not match the manifest: ') });
  });

  it('lists a refused entry that has no URI by its place alone', async () => {
    const p = await peer({ entries: [{ frontmatter: { name: 'x', description: 'X' }, resources: [] }] });
    const { problems } = await one(p).list();
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(/^skills\/list entry #0 was refused: /);
  });
});
