import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog, type AuditLine } from '../../../src/core/permissions/AuditLog';
import { tempDir } from '../../support/servers';

const read = (file: string): AuditLine[] => fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('AuditLog', () => {
  const tmp = tempDir();
  afterEach(() => fs.rmSync(path.join(tmp.dir, 'logs'), { recursive: true, force: true }));

  it('writes a start line before the call and an end line with the same id after it', async () => {
    let clock = Date.UTC(2026, 0, 2, 3, 4, 5);
    const file = path.join(tmp.dir, 'logs', 'nested', 'audit.jsonl');
    const log = new AuditLog(file, { now: () => clock });
    const id = log.start({ server: 'fx', tool: 'mcp__fx__echo', arguments: { text: 'hi', token: 'abc' }, decider: { by: 'user', choice: 'once' } });
    await log.flush();
    // A window closed now would leave this line.
    expect(read(file)).toEqual([
      { id, event: 'start', time: '2026-01-02T03:04:05.000Z', server: 'fx', tool: 'mcp__fx__echo', arguments: { text: 'hi', token: '[redacted]' }, decider: { by: 'user', choice: 'once' } },
    ]);
    clock += 42;
    log.end(id, { outcome: 'ok', outputChars: 2 });
    await log.flush();
    expect(read(file)[1]).toEqual({ id, event: 'end', time: '2026-01-02T03:04:05.042Z', server: 'fx', tool: 'mcp__fx__echo', durationMs: 42, outcome: 'ok', outputChars: 2 });
  });

  it('records a hook run with its own time and the detail redacted', async () => {
    const file = path.join(tmp.dir, 'logs', 'hooks.jsonl');
    const log = new AuditLog(file, { now: () => Date.UTC(2026, 0, 2) });
    log.hook({ hookEvent: 'PreToolUse', hook: './guard.sh', hookId: 'f#hooks.PreToolUse[0].hooks[0]', source: 'workspace', tool: 'mcp__fx__echo', durationMs: 12, outcome: 'deny', exitCode: 2, detail: 'no Bearer abcdefghijklmnop here' });
    log.hook({ hookEvent: 'SessionStart', hook: 'hello', hookId: 'g', source: 'user', durationMs: 1, outcome: 'ok' });
    await log.flush();
    const [first, second] = read(file);
    expect(first).toEqual({ id: expect.any(String), event: 'hook', time: '2026-01-02T00:00:00.000Z', hookEvent: 'PreToolUse', hook: './guard.sh', hookId: 'f#hooks.PreToolUse[0].hooks[0]', source: 'workspace', tool: 'mcp__fx__echo', durationMs: 12, outcome: 'deny', exitCode: 2, detail: 'no [redacted] here' });
    expect(second).not.toHaveProperty('detail');
  });

  it('records denials and errors, ignores an unknown or repeated end', async () => {
    const file = path.join(tmp.dir, 'logs', 'audit.jsonl');
    const log = new AuditLog(file, { now: () => 0 });
    log.denied({ server: 'fx', tool: 'mcp__fx__add', arguments: { a: 1 }, decider: { by: 'rule', rule: 'mcp__fx__*' }, reason: 'denied by the rule "mcp__fx__*"' });
    log.denied({ tool: 'write_file', arguments: {}, decider: { by: 'user', choice: 'deny' } });
    const id = log.start({ server: 'fx', tool: 'mcp__fx__fail', arguments: {}, decider: { by: 'rule', rule: '*' } });
    log.end(id, { outcome: 'error', outputChars: 10, error: 'boom' });
    log.end(id, { outcome: 'ok', outputChars: 1 });
    log.end('nope', { outcome: 'ok', outputChars: 1 });
    await log.flush();
    const lines = read(file);
    expect(lines.map((l) => l.event)).toEqual(['denied', 'denied', 'start', 'end']);
    expect(lines[0]).toMatchObject({ server: 'fx', tool: 'mcp__fx__add', decider: { by: 'rule', rule: 'mcp__fx__*' }, reason: 'denied by the rule "mcp__fx__*"', arguments: { a: 1 } });
    expect(lines[1]).not.toHaveProperty('reason');
    expect(lines[2]).not.toHaveProperty('error');
    expect(Object.keys(lines[2]!)).toEqual(['id', 'event', 'time', 'server', 'tool', 'arguments', 'decider']);
    expect(lines[3]).toMatchObject({ outcome: 'error', error: 'boom', outputChars: 10, durationMs: 0 });
    expect(new Set(lines.map((l) => l.id)).size).toBe(3);
  });

  it('redacts a secret in the reason of a denial', async () => {
    const file = path.join(tmp.dir, 'logs', 'denied.jsonl');
    const log = new AuditLog(file, { now: () => 0 });
    log.denied({ tool: 'fetch', arguments: {}, decider: { by: 'user', choice: 'deny' }, reason: 'not with Bearer abcdefghijklmnop' });
    await log.flush();
    expect(read(file)[0]).toMatchObject({ event: 'denied', reason: 'not with [redacted]' });
  });

  it('never throws when the file cannot be written, and reports it', async () => {
    const blocker = path.join(tmp.dir, 'not-a-dir');
    fs.writeFileSync(blocker, 'x');
    const errors: unknown[] = [];
    const log = new AuditLog(path.join(blocker, 'audit.jsonl'), { onError: (e) => errors.push(e) });
    const id = log.start({ tool: 't', arguments: {}, decider: { by: 'read_only_setting' } });
    log.end(id, { outcome: 'cancelled', outputChars: 0 });
    await log.flush();
    expect(errors.length).toBeGreaterThan(0);
    expect((errors[0] as NodeJS.ErrnoException).code).toMatch(/ENOTDIR|EEXIST/);
    // Without an error listener too: nothing throws and later lines are still attempted.
    const quiet = new AuditLog(path.join(blocker, 'x.jsonl'));
    quiet.start({ tool: 't', arguments: {}, decider: { by: 'read_only_setting' } });
    await expect(quiet.flush()).resolves.toBeUndefined();
    fs.rmSync(blocker);
  });
});
