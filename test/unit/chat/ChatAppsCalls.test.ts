import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/core/agent/types';
import { appsRig } from '../../support/appServers';

// An app's own tool calls (MCP Apps): through the chat's permission gate and the harness's
// pipeline, against in-memory servers. A card (an event) appears only when the gate asks, or the
// call is denied or fails.

async function started() {
  const rig = appsRig();
  await rig.harness.start();
  rig.chat.card('card1');
  return rig;
}

const states = (events: readonly AgentEvent[]) => events.map((e) => (e.type === 'tool_call' ? e.state : e.type));
const refusal = (text: string) => ({ content: [{ type: 'text', text }], isError: true });

describe('ChatApps: calls an app makes', () => {
  it("runs a call the gate allows without a card, with the app's arguments, and answers its result", async () => {
    const rig = await started();
    rig.rules = { allow: ['mcp__apps__show'] };
    const { apps, chat, prompter, audited } = rig;
    const result = await apps.requests.appCallTool({ itemId: 'card1', name: 'show', arguments: { city: 'Bergen' } });
    expect(result).toStrictEqual({ content: [{ type: 'text', text: 'shown {"city":"Bergen"}' }], structuredContent: { args: { city: 'Bergen' } } });
    expect(await apps.callTool('card1', 'show', undefined)).toMatchObject({ content: [{ type: 'text', text: 'shown {}' }] });
    expect(chat.events).toEqual([]);
    expect(prompter.requests).toEqual([]);
    expect(audited).toMatchObject([
      { server: 'apps', originalName: 'show', arguments: { city: 'Bergen' }, decider: { by: 'rule', rule: 'mcp__apps__show' } },
      { server: 'apps', originalName: 'show', arguments: {} },
    ]);
  });

  it('puts a call the gate asks about on a card that names the app, in the conversation', async () => {
    const { apps, chat, prompter } = await started();
    const result = await apps.callTool('card1', 'show', { city: 'Oslo' });
    expect(result).toStrictEqual({ content: [{ type: 'text', text: 'shown {"city":"Oslo"}' }], structuredContent: { args: { city: 'Oslo' } } });
    expect(prompter.requests).toMatchObject([{ tool: { name: 'mcp__apps__show' }, arguments: { city: 'Oslo' } }]);
    expect(states(chat.events)).toEqual(['waiting_for_approval', 'running', 'done']);
    for (const event of chat.events) {
      expect(event).toMatchObject({ type: 'tool_call', modelCallId: 'app:card1', caller: 'the app of "Show Time"', toolName: 'mcp__apps__show', arguments: { city: 'Oslo' } });
    }
  });

  it("answers the person's denial as the app's error, shown on the card", async () => {
    const rig = await started();
    rig.answer = 'deny';
    expect(await rig.apps.callTool('card1', 'show', {})).toStrictEqual(refusal('The user denied this call.'));
    expect(states(rig.chat.events)).toEqual(['waiting_for_approval', 'denied']);
  });

  it('shows a call a rule denies on a card, without asking', async () => {
    const rig = await started();
    rig.rules = { deny: ['mcp__apps__poll'] };
    expect(await rig.apps.callTool('card1', 'poll', {})).toStrictEqual(refusal('Not run: denied by the rule "mcp__apps__poll".'));
    expect(states(rig.chat.events)).toEqual(['denied']);
    expect(rig.chat.events[0]).toMatchObject({ modelCallId: 'app:card1', caller: 'the app of "Show Time"' });
    expect(rig.prompter.requests).toEqual([]);
  });

  it("hands the app a tool's own error with all its blocks, and shows the failed call on a card", async () => {
    const rig = await started();
    rig.rules = { allow: ['mcp__apps__fails'] };
    const result = await rig.apps.callTool('card1', 'fails', {});
    expect(result).toStrictEqual({ content: [{ type: 'text', text: 'it broke' }, { type: 'text', text: 'at step 2' }], isError: true });
    expect(states(rig.chat.events)).toEqual(['error']);
  });

  it('answers a call the pipeline refuses (arguments that are not an object) with its reason, on a card', async () => {
    const rig = await started();
    rig.rules = { allow: ['mcp__apps__show'] };
    const result = await rig.apps.callTool('card1', 'show', 5);
    expect(result).toStrictEqual(refusal('The arguments for "mcp__apps__show" are a JSON number, not an object. Send the arguments as one JSON object.'));
    expect(states(rig.chat.events)).toEqual(['error']);
  });

  it("calls the tool of the app's own server when another server has one of the same name", async () => {
    const rig = await started();
    rig.rules = { allow: ['*'] };
    rig.chat.card('bare', { server: 'bare', toolName: 'mcp__bare__show', title: undefined, app: { resourceUri: 'ui://bare/show.html' } });
    expect(await rig.apps.callTool('card1', 'show', {})).toMatchObject({ content: [{ type: 'text', text: 'shown {}' }] });
    expect(await rig.apps.callTool('bare', 'show', {})).toStrictEqual({ content: [{ type: 'text', text: 'bare show' }] });
    expect(rig.audited.map((a) => `${a.server}/${a.originalName}`)).toEqual(['apps/show', 'bare/show']);
  });

  it("refuses, without a card, a tool that is the model's only or that the app's server does not offer", async () => {
    const rig = await started();
    rig.rules = { allow: ['*'] };
    rig.chat.card('orphan', { server: 'gone', toolName: 'mcp__gone__show' });
    expect(await rig.apps.callTool('card1', 'model_only', {})).toStrictEqual(refusal('"model_only" is for the model only: apps may not call it.'));
    expect(await rig.apps.callTool('card1', 'nothing', {})).toStrictEqual(refusal('The app may call only tools of its own server "apps", which offers no tool "nothing" now.'));
    expect(await rig.apps.callTool('orphan', 'show', {})).toStrictEqual(refusal('The app may call only tools of its own server "gone", which offers no tool "show" now.'));
    expect(rig.chat.events).toEqual([]);
    expect(rig.audited).toEqual([]);
  });

  it('lets an app call a tool only apps may call', async () => {
    const rig = await started();
    rig.rules = { allow: ['mcp__apps__app_only'] };
    expect(await rig.apps.callTool('card1', 'app_only', {})).toStrictEqual({ content: [] });
  });

  it("stops an app's call in flight when the chat closes", async () => {
    const rig = await started();
    rig.rules = { allow: ['mcp__apps__wait'] };
    const calling = rig.apps.callTool('card1', 'wait', {});
    await expect.poll(() => rig.audited.length).toBe(1);
    rig.apps.dispose();
    expect(await calling).toStrictEqual(refusal('Cancelled: the call was stopped while it ran.'));
    expect(rig.chat.events).toEqual([]);
  });
});
