import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../../src/core/permissions/types';
import type { HarnessTool } from '../../../src/core/tools/types';
import { permissionAsk, ScriptedChanges, serverTool, toolCall, transcriptRig } from '../../support/transcriptRig';

const writeFile = serverTool('write_file');
const editFile = serverTool('edit_file');
const runCommand = serverTool('run_command');

/** A waiting card's event for `tool`, asking `request`. */
const waiting = (tool: HarnessTool, request: PermissionRequest = permissionAsk(tool, { arguments: { path: 'a.txt', content: 'new' } })) =>
  toolCall(tool, { state: 'waiting_for_approval', arguments: request.arguments, permission: request });

describe('what a waiting card asks', () => {
  it("shows the tool's title and description as the model reads them, hidden characters made visible", () => {
    const { transcript } = transcriptRig();
    const tool = serverTool('lookup', {
      title: 'Look\u200Bup',
      description: 'Finds\u2060 things',
      annotations: { title: 'not a hint', readOnlyHint: false, destructiveHint: true },
    });
    const request = permissionAsk(tool, {
      warnings: [{ where: 'description', kind: 'hidden_characters', excerpt: 'Finds<U+2060>' }],
      changedSinceApproval: '- old\n+ new',
      askedBy: { hook: 'guard.sh', reason: 'it touches production' },
    });
    transcript.onAgentEvent(waiting(tool, request));
    expect(transcript.items[0]).toMatchObject({ state: 'waiting_for_approval' });
    expect(transcript.items[0]).toHaveProperty('permission');
    expect((transcript.items[0] as { permission: unknown }).permission).toStrictEqual({
      changes: true,
      title: 'Look<U+200B>up',
      description: 'Finds<U+2060> things',
      annotations: { readOnlyHint: false, destructiveHint: true },
      warnings: [{ where: 'description', kind: 'hidden_characters', excerpt: 'Finds<U+2060>' }],
      changedSinceApproval: '- old\n+ new',
      askedBy: 'The hook "guard.sh" asks you: it touches production',
    });
  });

  it('asks plainly about a tool that says nothing of itself', () => {
    const { transcript } = transcriptRig();
    const tool = serverTool('lookup', { annotations: { readOnlyHint: true } });
    transcript.onAgentEvent(waiting(tool, permissionAsk(tool, { askedBy: { hook: 'ask-all' } })));
    expect(transcript.items[0]).toMatchObject({ permission: { description: '', warnings: [], annotations: { readOnlyHint: true }, askedBy: 'The hook "ask-all" asks you.' } });
    expect(transcript.items[0]).not.toHaveProperty('permission.changes');
    expect(transcript.items[0]).not.toHaveProperty('permission.title');
  });

  it('shows the command line and the folder it runs in, relative to the first workspace folder', () => {
    const { transcript } = transcriptRig({ changes: new ScriptedChanges(['/w', '/other']) });
    transcript.onAgentEvent(waiting(runCommand, permissionAsk(runCommand, { arguments: { command: 'npm test', cwd: 'pkg' } })));
    expect(transcript.items[0]).toMatchObject({ permission: { changes: true, command: { line: 'npm test', cwd: '/w/pkg' } } });
  });

  it('runs a command in the current folder when the host has no workspace folders to give', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent(waiting(runCommand, permissionAsk(runCommand, { arguments: { command: 'ls' } })));
    expect(transcript.items[0]).toMatchObject({ permission: { command: { line: 'ls', cwd: '.' } } });
  });

  it('shows no command line for a tool that is not a command, whatever its arguments say', () => {
    const { transcript } = transcriptRig({ changes: new ScriptedChanges() });
    const tool = serverTool('deploy', { annotations: { destructiveHint: true } });
    transcript.onAgentEvent(waiting(tool, permissionAsk(tool, { arguments: { command: 'rm -rf /' } })));
    expect(transcript.items[0]).toMatchObject({ permission: { changes: true } });
    expect(transcript.items[0]).not.toHaveProperty('permission.command');
  });

  it('keeps the question while the card waits, and forgets it once answered', () => {
    const { transcript } = transcriptRig();
    const request = permissionAsk(writeFile);
    transcript.onAgentEvent(waiting(writeFile, request));
    expect(transcript.requestOf('tool1')).toBe(request);
    transcript.onAgentEvent(toolCall(writeFile, { state: 'running' }));
    expect(transcript.requestOf('tool1')).toBeUndefined();
  });

  it('asks nothing on a card whose call already ended, even if its event still carries the question', () => {
    const changes = new ScriptedChanges();
    const { transcript } = transcriptRig({ changes });
    transcript.onAgentEvent(toolCall(writeFile, { state: 'denied', permission: permissionAsk(writeFile, { arguments: { path: 'a.txt', content: 'x' } }) }));
    expect(transcript.items[0]).not.toHaveProperty('permission');
    expect(transcript.requestOf('tool1')).toBeUndefined();
    expect(changes.asked).toEqual([]);
  });
});

describe("a waiting write's or edit's change preview", () => {
  const change = { path: 'a.txt', diff: '--- a/a.txt\n+++ b/a.txt\n-old\n+new' };

  it('joins the card once read, for writes and edits alike', async () => {
    const changes = new ScriptedChanges();
    const { transcript, posted } = transcriptRig({ changes });
    const write = permissionAsk(writeFile, { arguments: { path: 'a.txt', content: 'new' } });
    const edit = permissionAsk(editFile, { arguments: { path: 'b.txt', old_string: 'x', new_string: 'y' } });
    transcript.onAgentEvent(waiting(writeFile, write));
    transcript.onAgentEvent(waiting(editFile, edit));
    expect(changes.asked).toEqual([write, edit]);
    await changes.resolve(0, change);
    await changes.resolve(1, { path: 'b.txt', error: 'b.txt does not exist' });
    expect(transcript.items[0]).toMatchObject({ state: 'waiting_for_approval', permission: { changes: true, change } });
    expect(transcript.items[1]).toMatchObject({ permission: { change: { path: 'b.txt', error: 'b.txt does not exist' } } });
    expect(posted.at(-2)).toEqual({ type: 'upsert', items: [transcript.items[0]] });
  });

  it('is not read for a command or a tool that changes no file', () => {
    const changes = new ScriptedChanges();
    const { transcript } = transcriptRig({ changes });
    const deploy = serverTool('deploy', { annotations: { destructiveHint: true } });
    transcript.onAgentEvent(waiting(runCommand, permissionAsk(runCommand, { arguments: { command: 'ls' } })));
    transcript.onAgentEvent(waiting(deploy, permissionAsk(deploy)));
    expect(changes.asked).toEqual([]);
  });

  it('leaves the card as it is when no preview could be had', async () => {
    const changes = new ScriptedChanges();
    const { transcript, posted } = transcriptRig({ changes });
    transcript.onAgentEvent(waiting(writeFile));
    transcript.onAgentEvent(waiting(editFile, permissionAsk(editFile)));
    await changes.resolve(0, undefined);
    await changes.reject(1);
    expect(posted).toHaveLength(2);
    expect(transcript.items[0]).not.toHaveProperty('permission.change');
    expect(transcript.items[1]).not.toHaveProperty('permission.change');
  });

  it('does not come back to a card answered before it was read', async () => {
    const changes = new ScriptedChanges();
    const { transcript, posted } = transcriptRig({ changes });
    transcript.onAgentEvent(waiting(writeFile));
    transcript.onAgentEvent(toolCall(writeFile, { state: 'running' }));
    await changes.resolve(0, change);
    expect(posted).toHaveLength(2);
    expect(transcript.items[0]).toMatchObject({ state: 'running' });
    expect(transcript.items[0]).not.toHaveProperty('permission');
  });

  it('does not bring back a card whose turn was dropped before it was read', async () => {
    const changes = new ScriptedChanges();
    const { transcript, posted } = transcriptRig({ changes, items: [{ kind: 'user', id: 'u1', text: 'write it' }] });
    transcript.onAgentEvent(waiting(writeFile));
    transcript.truncate(1);
    await changes.resolve(0, change);
    expect(posted).toHaveLength(1);
    expect(transcript.items.map((i) => i.id)).toEqual(['u1']);
  });

  it('does not come back to a card the host showed again without its question', async () => {
    const changes = new ScriptedChanges();
    const { transcript, posted } = transcriptRig({ changes });
    transcript.onAgentEvent(waiting(writeFile));
    const { permission: _question, ...card } = transcript.items[0] as Extract<(typeof transcript.items)[number], { kind: 'tool' }>;
    transcript.add(card);
    await changes.resolve(0, change);
    expect(posted).toHaveLength(2);
    expect(transcript.items[0]).not.toHaveProperty('permission');
  });

  it("shows the preview of the card's latest question when the same call is asked again", async () => {
    const changes = new ScriptedChanges();
    const { transcript } = transcriptRig({ changes });
    transcript.onAgentEvent(waiting(writeFile, permissionAsk(writeFile, { arguments: { path: 'a.txt', content: 'first' } })));
    transcript.onAgentEvent(waiting(writeFile, permissionAsk(writeFile, { arguments: { path: 'a.txt', content: 'second' } })));
    await changes.resolve(1, { path: 'a.txt', diff: '+second' });
    await changes.resolve(0, { path: 'a.txt', diff: '+first' });
    expect(transcript.items).toHaveLength(1);
    expect(transcript.items[0]).toMatchObject({ arguments: { content: 'second' }, permission: { change: { diff: '+second' } } });
  });
});
