import { describe, expect, it } from 'vitest';
import { ModelToolCalls } from '../../../src/core/agent/ModelToolCalls';
import type { AgentEvent } from '../../../src/core/agent/types';
import { PermissionGate } from '../../../src/core/permissions/PermissionGate';
import { ScriptedPrompter } from '../../support/permissions';
import { PipelineFixture } from '../../support/pipeline';

// The resources a tool's result offers its card: resource links, and binary resources it embeds.
// A server's answer is not trusted: malformed blocks are skipped, and there are at most 50.
describe('the resources a result offers', () => {
  async function linksOf(content: unknown[]) {
    const fx = new PipelineFixture(async () => ({ isError: false, content: content as never })).setTools('fx', [{ name: 'res', description: '' }]);
    const calls = new ModelToolCalls({ call: fx.call, decider: new PermissionGate({ prompter: new ScriptedPrompter(() => ({ choice: 'once' })) }), tools: () => fx.tools() });
    const events: AgentEvent[] = [];
    await calls.run({ id: 'c1', name: 'mcp__fx__res', arguments: '{}' }, new AbortController().signal, (e) => events.push(e));
    const last = events.at(-1);
    return last?.type === 'tool_call' ? last.resourceLinks : undefined;
  }

  it('offers embedded binary resources with their bytes, and leaves text ones (already in the result) alone', async () => {
    const blob = Buffer.from('%PDF-1.7 ...').toString('base64');
    expect(
      await linksOf([
        { type: 'text', text: 'here' },
        { type: 'resource', resource: { uri: 'file:///reports/q3.pdf', mimeType: 'application/pdf', blob } },
        { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'notes' } },
        { type: 'resource_link', uri: 'file:///a.md', name: 'a' },
      ]),
    ).toEqual([
      { uri: 'file:///reports/q3.pdf', name: 'q3.pdf', mimeType: 'application/pdf', description: 'embedded in the result, 12 B', embedded: { uri: 'file:///reports/q3.pdf', mimeType: 'application/pdf', blob } },
      { uri: 'file:///a.md', name: 'a' },
    ]);
  });

  it('skips malformed blocks and keeps at most 50', async () => {
    expect(
      await linksOf([
        { type: 'resource', resource: { mimeType: 'image/png', blob: 'AAAA' } },
        { type: 'resource', resource: { uri: 'x://no-blob', blob: 42 } },
        { type: 'resource', resource: 'not an object' },
        { type: 'resource_link', name: 'no uri' },
        { type: 'resource', resource: { uri: 'x://bare', blob: 'AAAA' } },
        // A last part that names nothing: the URI stands for it.
        { type: 'resource', resource: { uri: 'demo://blob/1', blob: '' } },
      ]),
    ).toEqual([
      { uri: 'x://bare', name: 'bare', description: 'embedded in the result, 3 B', embedded: { uri: 'x://bare', blob: 'AAAA' } },
      { uri: 'demo://blob/1', name: 'demo://blob/1', description: 'embedded in the result, 0 B', embedded: { uri: 'demo://blob/1', blob: '' } },
    ]);
    const many = Array.from({ length: 60 }, (_, i) => ({ type: 'resource_link', uri: `x://r/${i}`, name: `r${i}` }));
    const links = await linksOf(many);
    expect(links).toHaveLength(50);
    expect(links?.at(-1)?.uri).toBe('x://r/49');
  });
});
