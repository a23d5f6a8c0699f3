import { describe, expect, it } from 'vitest';
import { restoreRedacted, toolEventInput } from '../../../src/core/hooks/hookInput';
import { redactSecrets } from '../../../src/core/permissions/redactSecrets';
import type { HarnessTool } from '../../../src/core/tools/types';

const tool: HarnessTool = { name: 'mcp__p_q__echo_2', description: '', inputSchema: { type: 'object' }, server: 'p.q', originalName: 'echo', pin: 'x' };
const common = { session_id: 's', transcript_path: '', cwd: '/w', permission_mode: 'default' as const };

describe('what a tool hook reads on stdin', () => {
  it('has Claude Code fields, the tool by its hook name, and ours under mcp_harness', () => {
    const input = toolEventInput('PostToolUse', common, { callId: 'c1', tool, arguments: { text: 'x' } }, { content: [{ type: 'text', text: 'out' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }], text: 'out', isError: false });
    expect(input).toEqual({
      ...common,
      hook_event_name: 'PostToolUse',
      tool_name: 'mcp__p.q__echo',
      tool_input: { text: 'x' },
      tool_response: [{ type: 'text', text: 'out' }, { type: 'image', data: '[3 bytes omitted]', mimeType: 'image/png' }],
      tool_use_id: 'c1',
      mcp_harness: { server: 'p.q', tool: 'echo', exposed_name: 'mcp__p_q__echo_2', result: { text: 'out', isError: false } },
    });
  });

  it('redacts what the audit log redacts, in arguments and results', () => {
    const secret = 'sk-abcdefghijklmnopqrstuvwx';
    const input = toolEventInput('PostToolUse', common, { callId: 'c', tool, arguments: { apiKey: secret, text: `use ${secret}` } }, { content: [{ type: 'text', text: `got ${secret}` }], text: `got ${secret}`, isError: false });
    expect(JSON.stringify(input)).not.toContain(secret);
    expect(input.tool_input).toEqual({ apiKey: '[redacted]', text: 'use [redacted]' });
  });
});

describe('restoring what a hook could not see', () => {
  const original = { apiKey: 'sk-abcdefghijklmnopqrstuvwx', header: 'Bearer abcdefghijklmnop', list: ['ghp_abcdefghijklmnopqrstuvwxyz0123', 'plain'], nested: { token: ['a', 'b'] }, text: 'hello' };
  const seen = redactSecrets(original) as Record<string, unknown>;

  it('puts back every value the hook left as it saw it', () => {
    expect(restoreRedacted(seen, original)).toEqual(original);
  });

  it('keeps what the hook changed, added or removed', () => {
    const updated = { ...seen, text: 'changed', extra: '[redacted]', header: 'Bearer [redacted] more' };
    delete (updated as Record<string, unknown>).list;
    expect(restoreRedacted(updated, original)).toEqual({ apiKey: original.apiKey, header: 'Bearer [redacted] more', nested: original.nested, text: 'changed', extra: '[redacted]' });
  });
});

describe('what a tool hook reads, each part', () => {
  const plain: HarnessTool = { name: 'read', description: '', inputSchema: { type: 'object' }, originalName: 'read', pin: 'y' };

  it('names a built-in tool without a server, and leaves out what a PreToolUse has not got', () => {
    expect(toolEventInput('PreToolUse', common, { callId: 'c', tool: plain, arguments: { path: 'a' } })).toStrictEqual({
      ...common,
      hook_event_name: 'PreToolUse',
      tool_name: 'read',
      tool_input: { path: 'a' },
      tool_use_id: 'c',
      mcp_harness: { server: null, tool: 'read', exposed_name: 'read' },
    });
  });

  it('gives the structured result and the client when there are some', () => {
    const input = toolEventInput('PostToolUse', common, { callId: 'c', tool, arguments: {}, client: { name: 'ide', version: '1' } as never }, { content: [], text: '', isError: true, structuredContent: { n: 1 } });
    expect(input.mcp_harness).toStrictEqual({ server: 'p.q', tool: 'echo', exposed_name: 'mcp__p_q__echo_2', result: { text: '', isError: true, structuredContent: { n: 1 } }, client: { name: 'ide', version: '1' } });
  });

  it('summarizes audio and resource blobs, and leaves other content and text resources alone', () => {
    const content = [
      { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'x://b', blob: 'AAAAAAAAAAAA', mimeType: 'application/zip' } },
      { type: 'resource', resource: { uri: 'x://t', text: 'kept' } },
      { type: 'image', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'x://l', name: 'l' },
      { type: 'text', text: 'AAAA' },
    ];
    const input = toolEventInput('PostToolUse', common, { callId: 'c', tool, arguments: {} }, { content: content as never, text: '', isError: false });
    expect(input.tool_response).toEqual([
      { type: 'audio', data: '[6 bytes omitted]', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'x://b', blob: '[9 bytes omitted]', mimeType: 'application/zip' } },
      content[2],
      content[3],
      content[4],
      content[5],
    ]);
  });

  it('restores inside lists and objects only where the shapes still match', () => {
    const original = { keys: ['sk-abcdefghijklmnopqrstuvwx'], one: 'sk-abcdefghijklmnopqrstuvwx' };
    const seen = redactSecrets(original) as { keys: string[]; one: string };
    // The hook turned a list into an object and an object key into a list: nothing to restore there.
    expect(restoreRedacted({ keys: { 0: seen.keys[0] }, one: [seen.one] }, original)).toEqual({ keys: { 0: '[redacted]' }, one: ['[redacted]'] });
    expect(restoreRedacted([seen.one], original)).toEqual(['[redacted]']);
    expect(restoreRedacted(null, original)).toBeNull();
    expect(restoreRedacted('[redacted]', 'sk-abcdefghijklmnopqrstuvwx')).toBe('sk-abcdefghijklmnopqrstuvwx');
    expect(restoreRedacted({ a: '[redacted]' }, ['sk-abcdefghijklmnopqrstuvwx'])).toEqual({ a: '[redacted]' });
  });
});
