import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type McpHarness } from '../../src/core';
import type { IModelProvider, ModelRequest } from '../../src/core/agent/types';
import { ChatHistoryStore, ChatSession, type ChatOpenedResource } from '../../src/core/chat';
import { PermissionGate } from '../../src/core/permissions';
import type { ChatItem, HostMessage, WebviewRequestAnswer, WebviewRequestParams, WebviewRequestType } from '../../src/shared/chatProtocol';
import { sessionDefaults } from '../support/chatSessionRig';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { ScriptedAsks } from '../support/scriptedAsks';
import { callTools, say, ScriptedProvider } from '../support/scriptedProvider';
import { referenceServers, repoPath, startProcess, tempDir, writeJson } from '../support/servers';
import { MemoryMemento } from '../support/memento';

const library = repoPath('test/fixtures/servers/library.mjs');

// Servers' prompts, resources and completions in the chat, against real servers: the reference
// server and the library fixture over stdio (2025-11-25) and over Streamable HTTP (2026-07-28).
describe('the chat uses what servers offer besides tools', () => {
  const tag = processTag();
  const tmp = tempDir();
  const stops: Array<() => Promise<void>> = [];
  const person = new ScriptedAsks();
  const opened: string[] = [];
  let harness: McpHarness;

  beforeAll(async () => {
    const http = await startProcess(process.execPath, [library, '--http=0', '--name=library-http'], { env: tag.env, ready: /listening \d+/ });
    stops.push(http.stop);
    const port = /listening (\d+)/.exec(http.output())![1];
    writeJson(tmp.dir, 'ws/.vscode/mcp.json', {
      servers: {
        everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env },
        lib: { command: process.execPath, args: [library], env: tag.env },
        web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      },
    });
    harness = await createHarness({ workspaceFolder: `${tmp.dir}/ws`, asks: { prompter: () => person, openUrl: async (url) => void opened.push(url) } });
    for (const s of harness.servers()) expect(s.state, `${s.name}: ${s.error}`).toBe('running');
  });

  afterAll(async () => {
    await harness?.dispose();
    await Promise.all(stops.map((s) => s()));
    tmp.cleanup();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  it('speaks each revision', () => {
    expect(harness.snapshot('lib')?.protocolVersion).toBe('2025-11-25');
    expect(harness.snapshot('web')?.protocolVersion).toBe('2026-07-28');
  });

  it('offers the built-in commands and every prompt after "/", with descriptions and arguments', async () => {
    const { ask } = chat(harness);
    const all = (await ask('suggest', { trigger: '/', query: '' })).items;
    expect(all.filter((s) => s.kind === 'command').map((s) => (s as { name: string }).name)).toEqual(['tools', 'call', 'mcp', 'help']);
    const prompts = all.filter((s) => s.kind === 'prompt').map((s) => `${(s as { server: string }).server}.${(s as { name: string }).name}`);
    expect(prompts).toEqual(expect.arrayContaining(['everything.simple-prompt', 'everything.completable-prompt', 'lib.review', 'lib.greet', 'web.review', 'web.greet']));
    const review = all.find((s) => s.kind === 'prompt' && s.server === 'web' && s.name === 'review');
    expect(review).toMatchObject({ title: 'Review a Book', description: 'Asks for a review of one book', arguments: [{ name: 'genre', required: true }, { name: 'title', required: true }] });
    const narrowed = (await ask('suggest', { trigger: '/', query: 'comp' })).items;
    expect(narrowed[0]).toMatchObject({ kind: 'prompt', server: 'everything', name: 'completable-prompt' });
    expect((await ask('suggest', { trigger: '/', query: 'to' })).items[0]).toMatchObject({ kind: 'command', name: 'tools' });
  });

  it('offers resources and templates after "@", with each template\'s variables', async () => {
    const { ask } = chat(harness);
    const items = (await ask('suggest', { trigger: '@', query: 'read' })).items;
    expect(items.filter((s) => s.kind === 'resource').map((s) => `${(s as { server: string }).server} ${(s as { uri: string }).uri}`)).toEqual(['lib library://readme', 'web library://readme']);
    const templates = (await ask('suggest', { trigger: '@', query: '' })).items.filter((s) => s.kind === 'template');
    expect(templates).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ server: 'everything', uriTemplate: 'demo://resource/dynamic/text/{resourceId}', variables: ['resourceId'] }),
        expect.objectContaining({ server: 'web', uriTemplate: 'library://books/{genre}/{title}', variables: ['genre', 'title'] }),
      ]),
    );
  });

  it.each(['lib', 'web'])('completes arguments with the others as context (%s)', async (server) => {
    const { ask } = chat(harness);
    expect((await ask('complete', { server, ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'genre', value: 'f' } })).values).toEqual(['fantasy']);
    expect((await ask('complete', { server, ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'title', value: '' }, context: { genre: 'history' } })).values).toEqual(['gibbon', 'herodotus']);
    expect((await ask('complete', { server, ref: { type: 'ref/resource', uri: 'library://books/{genre}/{title}' }, argument: { name: 'title', value: 'h' }, context: { genre: 'fantasy' } })).values).toEqual(['hobbit']);
  });

  it("completes the reference server's prompt argument from the department given", async () => {
    const { ask } = chat(harness);
    const values = await ask('complete', { server: 'everything', ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'name', value: '' }, context: { department: 'Engineering' } });
    expect(values.values).toEqual(['Alice', 'Bob', 'Charlie']);
  });

  it.each(['lib', 'web'])('puts a prompt\'s messages in the box and what it embeds in a chip (%s)', async (server) => {
    const { session, ask } = chat(harness);
    const { text } = await ask('usePrompt', { server, name: 'review', arguments: { genre: 'fantasy', title: 'hobbit' } });
    expect(text).toBe('Please review the fantasy book "hobbit".');
    expect(session.state().attachments).toEqual([expect.objectContaining({ label: 'hobbit', detail: expect.stringMatching(/^text\/plain, 45 B · /) })]);
  });

  it('sends a prompt\'s text with its embedded resource to the model', async () => {
    const { session, ask, model } = chat(harness, [say('a fine book')]);
    const { text } = await ask('usePrompt', { server: 'everything', name: 'completable-prompt', arguments: { department: 'Engineering', name: 'Alice' } });
    expect(text).toBe('Please promote Alice to the head of the Engineering team.');
    await session.send(text);
    expect(lastUser(model.requests[0]!)).toBe('Please promote Alice to the head of the Engineering team.');
  });

  it('says which required argument is missing, and what a server refused', async () => {
    const { ask } = chat(harness);
    await expect(ask('usePrompt', { server: 'lib', name: 'review', arguments: { genre: 'fantasy' } })).rejects.toThrow('missing required argument "title"');
    await expect(ask('attachResource', { server: 'web', template: { uriTemplate: 'library://books/{genre}/{title}', variables: { genre: 'fantasy' } } })).rejects.toThrow('fill in "title"');
    await expect(ask('attachResource', { server: 'lib', uri: 'library://nothing' })).rejects.toThrow(/lib: /);
  });

  it("attaches a resource with @ and its text reaches the model's request", async () => {
    const { session, ask, model } = chat(harness, [say('read it')]);
    await ask('attachResource', { server: 'everything', uri: 'demo://resource/static/document/features.md' });
    expect(session.state().attachments).toEqual([expect.objectContaining({ label: 'features.md', detail: expect.stringMatching(/^text\/markdown, [\d.]+ KB · everything$/) })]);
    await session.send('summarize @features.md');
    const sent = lastUser(model.requests[0]!);
    expect(sent).toContain('summarize @features.md');
    expect(sent).toContain('<context kind="resource" server="everything" uri="demo://resource/static/document/features.md">');
    expect(sent).toContain('# Everything Server - Features');
    expect(session.state().attachments).toBeUndefined();
    expect(userItems(session).at(-1)).toMatchObject({ text: 'summarize @features.md', context: ['features.md'] });
  });

  it.each(['lib', 'web'])('fills a template and attaches what it gives (%s)', async (server) => {
    const { session, ask, model } = chat(harness, [say('ok')]);
    await ask('attachResource', { server, template: { uriTemplate: 'library://books/{genre}/{title}', variables: { genre: 'science', title: 'origin' } } });
    await session.send('what is this?');
    expect(lastUser(model.requests[0]!)).toContain(`<context kind="resource" server="${server}" uri="library://books/science/origin">\nWhen on board H.M.S. Beagle`);
  });

  it("decodes a text blob and summarises other binary resources by type and size (the reference server's blob template)", async () => {
    const { session, ask, model } = chat(harness, [say('ok')]);
    await ask('attachResource', { server: 'everything', template: { uriTemplate: 'demo://resource/dynamic/blob/{resourceId}', variables: { resourceId: '4' } } });
    await ask('attachResource', { server: 'lib', uri: 'library://data.bin' });
    await session.send('look');
    const sent = lastUser(model.requests[0]!);
    expect(sent).toContain('Resource 4: This is a base64 blob created at');
    expect(sent).toContain('[binary resource: application/octet-stream, 6 B; its bytes are not shown to the model]');
  });

  it('sends an image resource as an image to a model that takes it, and describes it to one that does not', async () => {
    const seeing = chat(harness, [say('a dot')], ['image/png']);
    await seeing.ask('attachResource', { server: 'web', uri: 'library://logo.png' });
    await seeing.session.send('what is in the logo?');
    const message = seeing.model.requests[0]!.messages.at(-1)!;
    expect(message.role === 'user' && message.images).toEqual([{ mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) }]);
    expect(lastUser(seeing.model.requests[0]!)).toContain('[image image/png, 70 B: attached as image 1]');
    const blind = chat(harness, [say('no idea')]);
    await blind.ask('attachResource', { server: 'lib', uri: 'library://logo.png' });
    await blind.session.send('what is in the logo?');
    const plain = blind.model.requests[0]!.messages.at(-1)!;
    expect(plain.role === 'user' && plain.images).toBeUndefined();
    expect(lastUser(blind.model.requests[0]!)).toContain('[image image/png, 70 B: not shown, this model does not take it]');
  });

  it('updates a subscribed chip when the server says the resource changed, and sends what it read then', async () => {
    const { session, ask, model } = chat(harness, [say('ok')]);
    await ask('attachResource', { server: 'lib', uri: 'library://counter' });
    expect(session.state().attachments).toEqual([expect.objectContaining({ label: 'counter' })]);
    expect(session.state().attachments![0]!.updated).toBeUndefined();
    const bumped = await harness.callTool('mcp__lib__bump', {});
    expect(bumped.text).toMatch(/^count \d+ \(subscribers told\)$/);
    await waitFor(async () => session.state().attachments?.[0]?.updated === true);
    await session.send('what is the count?');
    expect(lastUser(model.requests[0]!)).toContain(`${bumped.text.replace(' (subscribers told)', '')}\n</context>`);
    // Sent, the chip is gone and so is the subscription.
    await waitFor(async () => !(await harness.callTool('mcp__lib__bump', {})).text.includes('subscribers told'));
  });

  it('shows a result\'s resource links on its card, opens one and attaches another', async () => {
    const openedDocs: ChatOpenedResource[] = [];
    const { session, ask, model } = chat(harness, [callTools(['c1', 'mcp__web__links', {}]), say('see the links'), say('used')], [], { openResource: async (r) => void openedDocs.push(r) });
    await session.send('links please');
    const card = session.state().items.find((i): i is Extract<ChatItem, { kind: 'tool' }> => i.kind === 'tool')!;
    expect(card.resourceLinks).toEqual([
      { uri: 'library://readme', name: 'readme', title: 'Library Readme', mimeType: 'text/markdown' },
      { uri: 'library://logo.png', name: 'logo', mimeType: 'image/png', description: 'The logo' },
      // The embedded binary resource is offered too; its bytes stay in the host, not in the panel's state.
      { uri: 'library://generated/report.bin', name: 'report.bin', mimeType: 'application/octet-stream', description: 'embedded in the result, 4 B' },
    ]);
    expect(model.requests).toHaveLength(2);
    await ask('openResource', { server: card.server!, uri: 'library://readme' });
    expect(openedDocs).toEqual([{ server: 'web', uri: 'library://readme', label: 'Library Readme', text: expect.stringContaining('# The Library'), mimeType: 'text/markdown' }]);
    await ask('attachResource', { server: card.server!, uri: 'library://logo.png' });
    expect(session.state().attachments).toEqual([expect.objectContaining({ label: 'logo' })]);
    // The server does not serve the embedded one by URI: it is attached and opened as the result gave it.
    await expect(harness.readResource('web', 'library://generated/report.bin')).rejects.toThrow();
    await ask('attachResource', { server: card.server!, uri: 'library://generated/report.bin', name: 'report.bin' });
    expect(session.state().attachments?.[1]).toMatchObject({ label: 'report.bin', detail: 'application/octet-stream, 4 B · web' });
    await ask('openResource', { server: card.server!, uri: 'library://generated/report.bin' });
    expect(openedDocs[1]).toMatchObject({ uri: 'library://generated/report.bin', label: 'report.bin', text: '[binary resource: application/octet-stream, 4 B; its bytes are not shown to the model]' });
    await session.send('use them');
    expect(lastUser(model.requests[2]!)).toContain('<context kind="resource" server="web" uri="library://generated/report.bin">\n[binary resource: application/octet-stream, 4 B;');
  });

  describe('a call that needs a page first (-32042, 2025-11-25)', () => {
    it('asks, opens the page only once accepted, waits until the person finished, and retries once', async () => {
      opened.length = 0;
      person.urlAnswers.push(() => 'accept');
      person.finishAnswers.push(() => {
        expect(opened).toEqual(['https://pay.example.com/checkout?key=a']);
        return 'done';
      });
      const result = await harness.callTool('mcp__lib__needs_page', { key: 'a' });
      expect(result).toMatchObject({ isError: false, text: 'page done' });
      expect(person.urls.at(-1)).toMatchObject({ server: 'lib', host: 'pay.example.com', message: 'Confirm the purchase', required: true });
      expect(person.finished.at(-1)?.id).toBe(person.urls.at(-1)?.id);
    });

    it('ends with a clear message for the model when declined, and opens nothing', async () => {
      opened.length = 0;
      person.urlAnswers.push(() => 'decline');
      const result = await harness.callTool('mcp__lib__needs_page', { key: 'b' });
      expect(result.isError).toBe(true);
      expect(result.text).toBe('lib: the server needs the user to open a page on pay.example.com first ("Confirm the purchase"); the user declined to open it, so the tool did not run');
      expect(opened).toEqual([]);
    });

    it('ends when the person does not finish on the page', async () => {
      person.urlAnswers.push(() => 'accept');
      person.finishAnswers.push(() => 'cancel');
      const result = await harness.callTool('mcp__lib__needs_page', { key: 'c' });
      expect(result.text).toMatch(/opened it but did not finish there, so the tool did not run$/);
    });

    it("retries the reference server's error-path call, whose retry then asks for its page the ordinary way", async () => {
      person.urlAnswers.push(
        (ask) => {
          expect(ask).toMatchObject({ required: true, host: 'modelcontextprotocol.io' });
          return 'accept';
        },
        (ask) => {
          expect(ask.required).toBeUndefined();
          expect(ask.host).toBe('example.com');
          return 'accept';
        },
      );
      person.finishAnswers.push(() => 'done');
      const result = await harness.callTool('mcp__everything__trigger-url-elicitation', { url: 'https://example.com/next', message: 'Next step', errorPath: true });
      expect(result.isError, result.text).toBe(false);
      expect(result.text).toContain('User completed the URL elicitation flow');
    });
  });
});

/** A chat session on the harness with a scripted model (taking `imageTypes`), and its requests as the panel makes them. */
function chat(harness: McpHarness, steps: ConstructorParameters<typeof ScriptedProvider>[0] = [], imageTypes: readonly string[] = [], extra: { openResource?(r: ChatOpenedResource): Promise<void> } = {}) {
  const model = Object.assign(new ScriptedProvider(steps), { imageTypes: () => imageTypes }) as ScriptedProvider & IModelProvider;
  const posted: HostMessage[] = [];
  let session: ChatSession;
  const gate = new PermissionGate({ prompter: { ask: (r, s) => session.prompter.ask(r, s) }, rules: () => ({ allow: ['mcp__*'], deny: [], autoAllowReadOnly: false }) });
  const entry = { choice: { id: 'scripted:m', label: 'Scripted' }, provider: model, model: 'm' };
  session = new ChatSession({
    ...sessionDefaults(posted),
    enabledTools: () => harness.tools(),
    servers: () => harness.servers(),
    call: (request, options) => harness.call(request, options),
    gate,
    history: new ChatHistoryStore(new MemoryMemento()),
    models: async () => ({ entries: [entry], selected: entry }),
    serverItems: harness,
    ...extra,
  });
  const ask = <K extends WebviewRequestType>(type: K, params: WebviewRequestParams<K>): Promise<WebviewRequestAnswer<K>> =>
    (session.requests[type] as (p: WebviewRequestParams<K>) => Promise<WebviewRequestAnswer<K>>)(params);
  return { session, ask, model, posted };
}

function lastUser(request: ModelRequest): string {
  const last = request.messages.at(-1)!;
  expect(last.role).toBe('user');
  return last.content;
}

function userItems(session: ChatSession) {
  return session.state().items.filter((i) => i.kind === 'user');
}

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(await check()).toBe(true);
}
