import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { chatRig, waitUntil } from '../../support/chatSessionRig';

const WRITES = [
  { name: 'write_file', description: 'Write', inputSchema: { type: 'object' } },
  { name: 'edit_file', description: 'Edit', inputSchema: { type: 'object' } },
];

/** Runs `/call` of a file tool and answers "deny" once its card shows the change; resolves that change. */
async function changeShown(rig: ReturnType<typeof chatRig>, tool: string, args: unknown) {
  const before = rig.tools().length;
  const turn = rig.session.send(`/call mcp__fs__${tool} ${JSON.stringify(args)}`);
  await waitUntil(() => rig.tools()[before]?.permission?.change !== undefined);
  const card = rig.tools()[before]!;
  await rig.handle({ type: 'answerPermission', callId: card.id, choice: 'deny' });
  await turn;
  return card.permission!.change;
}

function tempFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chat-change-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('ChatSession cards of file changes', () => {
  it('says why a change cannot be shown, naming the file the call gives', async () => {
    const rig = chatRig();
    rig.fx.setTools('fs', WRITES);
    expect(await changeShown(rig, 'write_file', { path: 'notes.md', content: 'x' })).toEqual({ path: 'notes.md', error: 'no workspace folder to resolve the path against' });
    expect(await changeShown(rig, 'write_file', { content: 'x' })).toEqual({ path: '(no path)', error: 'no file to preview in these arguments' });
    expect(await changeShown(rig, 'write_file', { path: 7, content: 'x' })).toEqual({ path: '(no path)', error: 'no file to preview in these arguments' });
    expect(rig.fx.calls).toEqual([]);
  });

  it('resolves a relative path against the first workspace folder', async () => {
    const ws = tempFolder();
    const rig = chatRig({ extra: { workspaceFolders: () => [ws, '/elsewhere'] } });
    rig.fx.setTools('fs', WRITES);
    expect(await changeShown(rig, 'edit_file', { path: 'missing.md', old_string: 'a', new_string: 'b' })).toEqual({ path: 'missing.md', error: 'missing.md does not exist' });
    fs.writeFileSync(path.join(ws, 'a.md'), 'one\n');
    expect(await changeShown(rig, 'edit_file', { path: 'a.md', old_string: 'one', new_string: 'two' })).toEqual({ path: 'a.md', diff: expect.stringContaining('-one\n+two') });
  });

  it('shows the start of a long change and says it was cut', async () => {
    const ws = tempFolder();
    const rig = chatRig({ extra: { workspaceFolders: () => [ws] } });
    rig.fx.setTools('fs', WRITES);
    const long = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n');
    const change = await changeShown(rig, 'write_file', { path: 'long.md', content: long });
    expect(change).toMatchObject({ path: 'long.md', truncated: true });
    expect(change!.diff!.split('\n')).toHaveLength(40);
  });

  it('says why Preview Change has nothing to open', async () => {
    const shown: unknown[] = [];
    const rig = chatRig({ extra: { showChange: async (c) => void shown.push(c) } });
    rig.fx.setTools('fs', WRITES);
    const turn = rig.session.send('/call mcp__fs__write_file {"path":"notes.md","content":"x"}');
    await waitUntil(() => rig.tools()[0]?.permission !== undefined);
    expect(await rig.handle({ type: 'previewChange', callId: rig.tools()[0]!.id })).toBe('No preview: no workspace folder to resolve the path against.');
    expect(shown).toEqual([]);
    rig.session.stop();
    await turn;
  });
});
