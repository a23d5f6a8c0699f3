import { describe, expect, it } from 'vitest';
import type { ResourceLinkInfo } from '../../../src/core/agent/types';
import { describeDecider } from '../../../src/core/chat/ChatTranscript';
import type { PermissionDecider } from '../../../src/core/permissions/types';
import type { HarnessTask, McpTaskStatus } from '../../../src/core/tasks/taskTypes';
import { permissionAsk, serverTool, toolCall, transcriptRig } from '../../support/transcriptRig';

const builtIn = serverTool('read_file', { name: 'read_file', server: undefined });
const task = (status: McpTaskStatus, statusMessage?: string): HarnessTask => ({
  server: 's',
  taskId: 't1',
  kind: 'tool',
  title: 'Slow',
  status,
  ...(statusMessage ? { statusMessage } : {}),
  createdAt: 0,
  lastUpdatedAt: 0,
});
const embeddedLink = (n: number): ResourceLinkInfo => ({ uri: `file:///shot${n}.png`, name: `shot${n}.png`, mimeType: 'image/png', embedded: { uri: `file:///shot${n}.png`, mimeType: 'image/png', blob: `B${n}` } });

describe('tool cards', () => {
  it("shows a built-in tool's finished call with nothing it did not report", () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent(toolCall(builtIn, { arguments: { path: 'a.ts' } }));
    expect(transcript.items).toStrictEqual([{ kind: 'tool', id: 'tool1', toolName: 'read_file', tool: 'read_file', arguments: { path: 'a.ts' }, state: 'done' }]);
    expect(transcript.callOf('tool1')).toBe('c-read_file');
  });

  it('shows a call of a tool that was not found under the name the model asked for', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'tool_call', modelCallId: 'm', callId: 'c1', toolName: 'nope', arguments: {}, state: 'error', output: 'unknown tool "nope"' });
    expect(transcript.items).toStrictEqual([{ kind: 'tool', id: 'tool1', toolName: 'nope', arguments: {}, state: 'error', output: 'unknown tool "nope"' }]);
  });

  it('shows everything a finished call reports: title, exposed name, progress, timings, decision, warnings, kept result and caller', () => {
    const { transcript } = transcriptRig();
    const tool = serverTool('search', { title: 'Search' });
    transcript.onAgentEvent(
      toolCall(tool, {
        toolName: 'search',
        progress: { progress: 2, total: 2 },
        output: '',
        runMs: 12.4,
        waitMs: 1500.6,
        decider: { by: 'rule', rule: 'allow mcp__s__*' },
        warnings: [{ where: 'result', kind: 'instructions', excerpt: 'ignore previous' }],
        stored: { handle: 'r-0000abcd', toolName: 'mcp__s__search', chars: 9000, lines: 120 },
        caller: 'the app of "Search"',
      }),
    );
    expect(transcript.items[0]).toStrictEqual({
      kind: 'tool',
      id: 'tool1',
      toolName: 'search',
      server: 's',
      tool: 'search',
      title: 'Search',
      exposedName: 'mcp__s__search',
      arguments: {},
      state: 'done',
      progress: { progress: 2, total: 2 },
      output: '',
      durationMs: 12,
      waitMs: 1501,
      decidedBy: 'by the rule "allow mcp__s__*" (mcpHarness.permissions)',
      warnings: [{ where: 'result', kind: 'instructions', excerpt: 'ignore previous' }],
      result: { handle: 'r-0000abcd', chars: 9000, lines: 120 },
      caller: 'the app of "Search"',
    });
  });

  it('updates one card through its call and says who decided only once it is decided', () => {
    const { transcript, posted } = transcriptRig();
    const tool = serverTool('write');
    const decider: PermissionDecider = { by: 'user', choice: 'once' };
    transcript.onAgentEvent(toolCall(tool, { state: 'waiting_for_approval', permission: permissionAsk(tool), decider }));
    expect(transcript.items[0]).not.toHaveProperty('decidedBy');
    transcript.onAgentEvent(toolCall(tool, { state: 'running', decider }));
    expect(transcript.items).toHaveLength(1);
    expect(transcript.items[0]).toMatchObject({ id: 'tool1', state: 'running', decidedBy: 'allowed once by you' });
    expect(transcript.items[0]).not.toHaveProperty('permission');
    expect(posted.map((m) => m.type)).toEqual(['upsert', 'upsert']);
  });

  it('gives each call its own card even when the model repeats its call id', () => {
    const { transcript } = transcriptRig();
    const tool = serverTool('read');
    transcript.onAgentEvent(toolCall(tool, { callId: 'p1', modelCallId: 'same' }));
    transcript.onAgentEvent(toolCall(tool, { callId: 'p2', modelCallId: 'same' }));
    expect(transcript.items.map((i) => i.id)).toEqual(['tool1', 'tool2']);
    expect([transcript.callOf('tool1'), transcript.callOf('tool2'), transcript.callOf('a9')]).toEqual(['p1', 'p2', undefined]);
  });
});

describe('who decided, in words for the card', () => {
  it.each<[PermissionDecider, string]>([
    [{ by: 'rule', rule: 'deny *__delete' }, 'by the rule "deny *__delete" (mcpHarness.permissions)'],
    [{ by: 'remembered', scope: 'session' }, 'allowed for this session'],
    [{ by: 'remembered', scope: 'workspace' }, 'always allowed in this workspace'],
    [{ by: 'remembered', scope: 'server_session' }, 'server allowed for this session'],
    [{ by: 'user', choice: 'deny' }, 'denied by you'],
    [{ by: 'user', choice: 'once' }, 'allowed once by you'],
    [{ by: 'user', choice: 'session' }, 'allowed by you'],
    [{ by: 'user', choice: 'workspace' }, 'allowed by you'],
    [{ by: 'read_only_setting' }, 'allowed as read-only (mcpHarness.permissions.autoAllowReadOnly)'],
    [{ by: 'caller' }, 'run by you'],
    [{ by: 'hook', hook: 'guard.sh' }, 'by the hook "guard.sh"'],
  ])('describes %j as "%s"', (decider, words) => {
    expect(describeDecider(decider)).toBe(words);
  });

  it('shows the words on the card of a denied call', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent(toolCall(serverTool('rm'), { state: 'denied', decider: { by: 'hook', hook: 'guard.sh' }, output: 'blocked' }));
    expect(transcript.items[0]).toMatchObject({ state: 'denied', decidedBy: 'by the hook "guard.sh"', output: 'blocked' });
  });
});

describe('cards of calls that run as tasks', () => {
  it("shows a running task's status message and progress", () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent(toolCall(serverTool('slow'), { state: 'running', progress: { progress: 1, total: 4 }, task: task('working', 'step 1 of 4') }));
    expect(transcript.items[0]).toMatchObject({ state: 'running', progress: { progress: 1, total: 4 }, task: { server: 's', taskId: 't1', status: 'working', statusMessage: 'step 1 of 4', modelCallId: 'm' } });
  });

  it('keeps the card running, without stale output or message, when the host stops following a task that goes on', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent(toolCall(serverTool('slow'), { state: 'cancelled', output: 'window closed', progress: { progress: 1 }, task: task('working', 'step 1 of 4') }));
    expect(transcript.items[0]).toStrictEqual({ kind: 'tool', id: 'tool1', toolName: 'mcp__s__slow', server: 's', tool: 'slow', arguments: {}, state: 'running', task: { server: 's', taskId: 't1', status: 'working', modelCallId: 'm' } });
  });

  it('shows a finished task as its call ended', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent(toolCall(serverTool('slow'), { output: 'all done', task: task('completed') }));
    expect(transcript.items[0]).toMatchObject({ state: 'done', output: 'all done', task: { status: 'completed' } });
  });

  it('keeps the question on a card that waits for approval, whatever its task says', () => {
    const { transcript } = transcriptRig();
    const tool = serverTool('slow');
    transcript.onAgentEvent(toolCall(tool, { state: 'waiting_for_approval', permission: permissionAsk(tool), task: task('input_required') }));
    expect(transcript.items[0]).toMatchObject({ state: 'waiting_for_approval', permission: { description: '' } });
  });
});

describe('resources a result embedded', () => {
  it('keeps an embedded resource for the card, sending the panel only its link', () => {
    const { transcript, posted } = transcriptRig();
    const link: ResourceLinkInfo = { uri: 'file:///readme.md', name: 'readme.md' };
    transcript.onAgentEvent(toolCall(serverTool('shoot'), { resourceLinks: [embeddedLink(1), link] }));
    const links = [{ uri: 'file:///shot1.png', name: 'shot1.png', mimeType: 'image/png' }, link];
    expect(transcript.items[0]).toMatchObject({ resourceLinks: links });
    expect(JSON.stringify(posted)).not.toContain('B1');
    expect(transcript.embeddedResource('s', 'file:///shot1.png')).toEqual({ uri: 'file:///shot1.png', mimeType: 'image/png', blob: 'B1' });
    expect(transcript.embeddedResource('other', 'file:///shot1.png')).toBeUndefined();
    expect(transcript.embeddedResource('s', 'file:///readme.md')).toBeUndefined();
  });

  it('keeps the newest twenty, a resource embedded again counting as new', () => {
    const { transcript } = transcriptRig();
    const shoot = serverTool('shoot');
    transcript.onAgentEvent(toolCall(shoot, { callId: 'first', resourceLinks: Array.from({ length: 20 }, (_, n) => embeddedLink(n)) }));
    transcript.onAgentEvent(toolCall(shoot, { callId: 'again', resourceLinks: [embeddedLink(0)] }));
    transcript.onAgentEvent(toolCall(shoot, { callId: 'more', resourceLinks: [embeddedLink(20)] }));
    const kept = Array.from({ length: 21 }, (_, n) => transcript.embeddedResource('s', `file:///shot${n}.png`) !== undefined);
    expect(kept).toEqual([true, false, ...Array<boolean>(19).fill(true)]);
  });

  it("does not keep what a built-in tool's result embedded, so it pushes out no server's resource", () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent(toolCall(serverTool('shoot'), { resourceLinks: Array.from({ length: 20 }, (_, n) => embeddedLink(n)) }));
    transcript.onAgentEvent(toolCall(builtIn, { resourceLinks: [embeddedLink(99)] }));
    expect(transcript.items[1]).toMatchObject({ resourceLinks: [{ uri: 'file:///shot99.png', name: 'shot99.png' }] });
    expect(transcript.embeddedResource('s', 'file:///shot0.png')).toBeDefined();
  });
});
