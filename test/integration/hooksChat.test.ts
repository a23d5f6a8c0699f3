import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatHistoryStore, ChatSession } from '../../src/core/chat';
import { parseHooksValue } from '../../src/core/config/parseHooksConfig';
import { HookRunner } from '../../src/core/hooks/HookRunner';
import type { AuditHookEntry, IAuditSink } from '../../src/core/permissions/AuditLog';
import { PermissionGate } from '../../src/core/permissions';
import type { ChatItem } from '../../src/shared/chatProtocol';
import { PipelineFixture } from '../support/pipeline';
import { ScriptedProvider, say } from '../support/scriptedProvider';
import { repoPath, tempDir } from '../support/servers';
import { MemoryMemento } from '../support/memento';

// The chat's own events with real hook commands: UserPromptSubmit may add context for the model
// or refuse a message; SessionStart adds context once per conversation opened.

const scripted = (mode: string, extra = '') => `node ${repoPath('test/fixtures/hooks/scripted.mjs')} --mode=${mode} ${extra}`.trim();
const tmp = tempDir('hooks-chat-');
afterAll(() => tmp.cleanup());

function chat(hooks: Record<string, unknown>, model: ScriptedProvider) {
  const runner = new HookRunner({ projectDir: () => tmp.dir });
  const parsed = parseHooksValue(hooks, { source: 'user', file: 'settings.json' });
  expect(parsed.errors).toEqual([]);
  runner.setHooks(parsed.hooks);
  const audited: AuditHookEntry[] = [];
  const audit: IAuditSink = { start: () => 'id', end: () => undefined, denied: () => undefined, hook: (e) => audited.push(e) };
  const fx = new PipelineFixture();
  const session: ChatSession = new ChatSession({
    enabledTools: () => fx.tools(),
    servers: () => [],
    call: fx.call,
    gate: new PermissionGate({ prompter: { ask: (r, s) => session.prompter.ask(r, s) } }),
    audit,
    hooks: runner,
    history: new ChatHistoryStore(new MemoryMemento()),
    models: async () => ({ entries: [{ choice: { id: 's', label: 'S' }, provider: model, model: 'm' }], selected: { choice: { id: 's', label: 'S' }, provider: model, model: 'm' } }),
    selectModel: async () => undefined,
    settings: () => ({ maxSteps: 5, toolSearch: {} }),
    post: () => undefined,
    runAction: async () => undefined,
    copy: async () => undefined,
    log: () => undefined,
  });
  return { session, audited, items: (): ChatItem[] => [...session.state().items] };
}

describe('chat hooks', () => {
  it('SessionStart context goes with the first message of each conversation; UserPromptSubmit context with every message', async () => {
    const log = path.join(tmp.dir, 'events.log');
    const model = new ScriptedProvider([say('one'), say('two'), say('three')]);
    const { session, audited } = chat(
      {
        SessionStart: [{ matcher: 'startup|clear', hooks: [{ type: 'command', command: scripted('plain', `--log=${log} "--reason=branch: main"`) }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: scripted('note', `--log=${log} "--reason=today is Tuesday"`) }] }],
      },
      model,
    );
    await session.refreshModels();
    await session.send('hello');
    await session.send('again');
    await session.newChat();
    await session.send('fresh');
    const userTexts = model.requests.map((r) => r.messages.filter((m) => m.role === 'user').at(-1)!.content);
    expect(userTexts[0]).toMatch(/^hello\n\n<hook_context hook="[^"]*--mode=plain[^"]*">\nbranch: main\n<\/hook_context>\n\n<hook_context hook="[^"]*--mode=note[^"]*">\ntoday is Tuesday\n<\/hook_context>$/);
    expect(userTexts[1]).toMatch(/^again\n\n<hook_context hook="[^"]*--mode=note[^"]*">\ntoday is Tuesday\n<\/hook_context>$/);
    expect(userTexts[2]).toContain('branch: main');
    const events = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l).input);
    expect(events.map((e) => [e.hook_event_name, e.source ?? e.prompt])).toEqual([
      ['SessionStart', 'startup'],
      ['UserPromptSubmit', 'hello'],
      ['UserPromptSubmit', 'again'],
      ['SessionStart', 'clear'],
      ['UserPromptSubmit', 'fresh'],
    ]);
    expect(events[0].session_id).toBe(events[1].session_id);
    expect(events[3].session_id).not.toBe(events[0].session_id);
    expect(audited.map((a) => [a.hookEvent, a.outcome])).toEqual([
      ['SessionStart', 'ok'],
      ['UserPromptSubmit', 'ok'],
      ['UserPromptSubmit', 'ok'],
      ['SessionStart', 'ok'],
      ['UserPromptSubmit', 'ok'],
    ]);
  });

  it('a UserPromptSubmit hook refuses a message (exit 2, decision: block, or by failing): the model never gets it, the user reads why', async () => {
    for (const [mode, why] of [
      ['exit2', /refused this message: no secrets in prompts$/],
      ['block', /refused this message: no secrets in prompts$/],
      ['crash', /refused this message: the UserPromptSubmit hook ".*" exited with code 1: boom: no secrets in prompts$/],
    ] as const) {
      const model = new ScriptedProvider([say('never')]);
      const { session, items } = chat({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: scripted(mode, '"--reason=no secrets in prompts"') }] }] }, model);
      await session.refreshModels();
      await session.send('my password is hunter2');
      expect(model.requests, mode).toHaveLength(0);
      const notice = items().find((i): i is Extract<ChatItem, { kind: 'notice' }> => i.kind === 'notice');
      expect(notice?.text, mode).toMatch(why);
    }
  });

  it('never shows a prompt hook the secrets the audit log would redact', async () => {
    const log = path.join(tmp.dir, 'redacted.log');
    const model = new ScriptedProvider([say('ok')]);
    const { session } = chat({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: scripted('note', `--log=${log}`) }] }] }, model);
    await session.refreshModels();
    await session.send('use ghp_abcdefghijklmnopqrstuvwxyz0123456789 please');
    expect(JSON.parse(fs.readFileSync(log, 'utf8')).input.prompt).toBe('use [redacted] please');
  });
});
