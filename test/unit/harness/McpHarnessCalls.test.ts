import { describe, expect, it, onTestFinished } from 'vitest';
import type { McpLogEntry } from '../../../src/core/mcp/McpServerSnapshot';
import { memoryHarness } from '../../support/memoryHarness';

async function started() {
  // Nobody reads its log until a test listens: calls are logged only then.
  const r = memoryHarness({ alpha: { command: 'alpha' } }, { alpha: {} });
  onTestFinished(() => r.harness.dispose());
  await r.harness.start();
  return r.harness;
}

describe('McpHarness, calls as a host sees them', () => {
  it('still hands a caller its events when it also asks for progress, and reports no progress a tool never sent', async () => {
    const harness = await started();
    const states: string[] = [];
    const progress: unknown[] = [];
    const result = await harness.callTool('mcp__alpha__echo', { text: 'hi' }, { onProgress: (p) => progress.push(p), onEvent: (e) => states.push(e.state) });
    expect(result).toStrictEqual({ isError: false, text: 'hi', content: [{ type: 'text', text: 'hi' }] });
    expect(states).toContain('running');
    expect(states.at(-1)).toBe('done');
    expect(progress).toEqual([]);
    expect(await harness.callTool('mcp__alpha__echo', { text: 'again' }, { onProgress: (p) => progress.push(p) })).toMatchObject({ isError: false, text: 'again' });
  });

  it('writes a line to the log when a call starts and when it is done, only while someone reads the log', async () => {
    const harness = await started();
    await harness.callTool('mcp__alpha__echo', { text: 'unlogged' });
    const logs: McpLogEntry[] = [];
    harness.onDidLog((e) => logs.push(e));
    let loggedWhenRunning = -1;
    const count = () => logs.filter((l) => l.message.startsWith('call echo')).length;
    await harness.callTool('mcp__alpha__echo', { text: 'hi' }, { onEvent: (e) => e.state === 'running' && (loggedWhenRunning = count()) });
    // The start is in the log by the time the caller hears the call runs.
    expect(loggedWhenRunning).toBe(1);
    const lines = logs.filter((l) => l.message.startsWith('call echo'));
    expect(lines.map((l) => [l.server, l.level])).toEqual([
      ['alpha', 'info'],
      ['alpha', 'info'],
    ]);
    expect(lines[0]!.message).toMatch(/^call echo \(\S{1,8}\)$/);
    expect(lines[1]!.message).toMatch(/^call echo \(\S{1,8}\) done after \d+ ms$/);
  });

  it('writes no call lines for a built-in tool, which belongs to no server', async () => {
    const harness = await started();
    harness.registerBuiltin({ name: 'clock', description: 'c', inputSchema: { type: 'object' }, invoke: async () => ({ isError: false, text: 'noon', content: [] }) });
    const logs: McpLogEntry[] = [];
    harness.onDidLog((e) => logs.push(e));
    expect(await harness.callTool('clock')).toMatchObject({ isError: false, text: 'noon' });
    expect(logs).toEqual([]);
  });

  it('refuses to look up a task of a server that is not configured', async () => {
    const harness = await started();
    await expect(harness.getTask('nope', 'task-1')).rejects.toMatchObject({ kind: 'unavailable', message: 'server "nope" is not configured' });
  });
});
