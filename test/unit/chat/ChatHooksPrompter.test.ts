import { describe, expect, it } from 'vitest';
import { ChatHooks, type IChatHooks } from '../../../src/core/chat/ChatHooks';
import { ChatPrompter } from '../../../src/core/chat/ChatPrompter';
import type { AuditHookEntry, IAuditSink } from '../../../src/core/permissions/AuditLog';
import type { PermissionRequest } from '../../../src/core/permissions/types';

const run = (hook: string): AuditHookEntry => ({ hookEvent: 'UserPromptSubmit', hook, hookId: hook, source: 'user', durationMs: 1, outcome: 'ok' });

/** Hooks that answer from a script and record what they were asked. */
class Hooks implements IChatHooks {
  readonly calls: string[] = [];
  block: { hook: string; reason: string } | undefined;
  async userPromptSubmit(c: { conversationId: string; prompt: string }) {
    this.calls.push(`prompt ${c.conversationId} ${c.prompt}`);
    return { notes: [{ hook: 'date "x"', text: 'It is Tuesday.' }], messages: ['prompt hook says hi'], runs: [run('date')], ...(this.block ? { blocked: this.block } : {}) };
  }
  async sessionStart(c: { conversationId: string; source: string }) {
    this.calls.push(`session ${c.conversationId} ${c.source}`);
    return { notes: [{ hook: 'git<status>', text: 'On branch main.' }], messages: [], runs: [run('git')] };
  }
}

function audit(): IAuditSink & { hooks: string[] } {
  const hooks: string[] = [];
  return { hooks, start: () => '1', end: () => undefined, denied: () => undefined, hook: (e) => void hooks.push(e.hook) };
}

describe('ChatHooks', () => {
  it('runs SessionStart once per conversation, then UserPromptSubmit, and sends their context after the message', async () => {
    const hooks = new Hooks();
    const sink = audit();
    const chat = new ChatHooks(hooks, sink);
    const notices: string[] = [];
    const notice = (level: string, text: string) => void notices.push(`${level}: ${text}`);
    chat.opened('resume');
    const text = await chat.beforeTurn('c1', 'Hello', new AbortController().signal, notice);
    expect(text).toBe('Hello\n\n<hook_context hook="git_status_">\nOn branch main.\n</hook_context>\n\n<hook_context hook="date _x_">\nIt is Tuesday.\n</hook_context>');
    expect(await chat.beforeTurn('c1', 'Again', new AbortController().signal, notice)).toBe('Again\n\n<hook_context hook="date _x_">\nIt is Tuesday.\n</hook_context>');
    expect(hooks.calls).toEqual(['session c1 resume', 'prompt c1 Hello', 'prompt c1 Again']);
    expect(sink.hooks).toEqual(['git', 'date', 'date']);
    expect(notices).toEqual(['warning: prompt hook says hi', 'warning: prompt hook says hi']);
  });

  it('refuses a message a hook blocked, naming the hook and why', async () => {
    const hooks = new Hooks();
    hooks.block = { hook: 'guard', reason: 'no secrets' };
    const notices: string[] = [];
    const text = await new ChatHooks(hooks, undefined).beforeTurn('c', 'my password is x', new AbortController().signal, (l, t) => void notices.push(`${l}: ${t}`));
    expect(text).toBeUndefined();
    expect(notices.at(-1)).toBe('warning: The UserPromptSubmit hook "guard" refused this message: no secrets');
  });

  it('passes the message as it is without hooks', async () => {
    expect(await new ChatHooks(undefined, undefined).beforeTurn('c', 'plain', new AbortController().signal, () => undefined)).toBe('plain');
  });
});

describe('ChatPrompter', () => {
  const request = (callId: string) => ({ callId }) as PermissionRequest;

  it('waits for the answer to the call it asked about, by its id', async () => {
    const prompter = new ChatPrompter();
    const asked = prompter.ask(request('a'), new AbortController().signal);
    expect(prompter.isWaiting('a')).toBe(true);
    expect(prompter.answer('b', { choice: 'once' })).toBe(false);
    expect(prompter.answer('a', { choice: 'once' })).toBe(true);
    expect(await asked).toEqual({ choice: 'once' });
    expect(prompter.isWaiting('a')).toBe(false);
    expect(prompter.answer('a', { choice: 'once' })).toBe(false);
  });

  it('denies a card when stopped, when asked again for the same call, and when its turn ends (not the cards of other callers)', async () => {
    const prompter = new ChatPrompter();
    const stop = new AbortController();
    const stopped = prompter.ask(request('a'), stop.signal);
    stop.abort();
    expect(await stopped).toEqual({ choice: 'deny', reason: 'stopped before it was approved' });
    expect(await prompter.ask(request('x'), stop.signal)).toEqual({ choice: 'deny', reason: 'stopped before it was approved' });
    const turn = new AbortController();
    const first = prompter.ask(request('b'), turn.signal);
    const second = prompter.ask(request('b'), turn.signal);
    expect(await first).toEqual({ choice: 'deny', reason: 'asked again' });
    const other = prompter.ask(request('c'), turn.signal);
    // An app's own call, asked under its own signal: the turn's end leaves its card open.
    const app = prompter.ask(request('app'), new AbortController().signal);
    prompter.denyAskedUnder(turn.signal, 'the turn ended');
    expect(await second).toEqual({ choice: 'deny', reason: 'the turn ended' });
    expect(await other).toEqual({ choice: 'deny', reason: 'the turn ended' });
    expect(prompter.isWaiting('app')).toBe(true);
    expect(prompter.answer('app', { choice: 'once' })).toBe(true);
    expect(await app).toEqual({ choice: 'once' });
    expect(prompter.isWaiting('b')).toBe(false);
  });
});
