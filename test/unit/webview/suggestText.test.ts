import { describe, expect, it } from 'vitest';
import { suggestionDetail, suggestionLabel, triggerAt } from '../../../webview/suggestText';

describe('triggerAt', () => {
  it('opens "/" only at the start of the box, before any space', () => {
    expect(triggerAt('/', 1)).toEqual({ trigger: '/', query: '', start: 0, end: 1 });
    expect(triggerAt('/every.comp', 11)).toEqual({ trigger: '/', query: 'every.comp', start: 0, end: 11 });
    expect(triggerAt('/tools x', 8)).toBeUndefined();
    expect(triggerAt('see /tools', 10)).toBeUndefined();
    // The caret decides, not the end of the text.
    expect(triggerAt('/to and more', 3)).toEqual({ trigger: '/', query: 'to', start: 0, end: 3 });
  });

  it('opens "@" at the start or after a space, up to the caret', () => {
    expect(triggerAt('@', 1)).toEqual({ trigger: '@', query: '', start: 0, end: 1 });
    expect(triggerAt('summarize @feat', 15)).toEqual({ trigger: '@', query: 'feat', start: 10, end: 15 });
    expect(triggerAt('line one\n@re', 12)).toEqual({ trigger: '@', query: 're', start: 9, end: 12 });
    expect(triggerAt('mail me@example', 15)).toBeUndefined();
    expect(triggerAt('@a b', 4)).toBeUndefined();
    expect(triggerAt('plain text', 10)).toBeUndefined();
  });
});

describe('suggestion lines', () => {
  it('name each kind as it is typed, with what describes it', () => {
    const prompt = { kind: 'prompt', server: 'everything', name: 'completable-prompt', title: 'Team Management', description: 'Narrows values.', arguments: [] } as const;
    expect(suggestionLabel(prompt)).toBe('/everything.completable-prompt');
    expect(suggestionDetail(prompt)).toBe('Team Management: Narrows values.');
    expect(suggestionDetail({ ...prompt, title: 'completable-prompt' })).toBe('Narrows values.');
    const command = { kind: 'command', name: 'tools', description: 'List tools', insert: '/tools ' } as const;
    expect([suggestionLabel(command), suggestionDetail(command)]).toEqual(['/tools', 'List tools']);
    const resource = { kind: 'resource', server: 'docs', uri: 'docs://a', name: 'a.md', title: 'Guide', mimeType: 'text/markdown' } as const;
    expect([suggestionLabel(resource), suggestionDetail(resource)]).toEqual(['@Guide', 'docs · text/markdown']);
    const template = { kind: 'template', server: 'docs', uriTemplate: 'docs://{page}', name: 'page', variables: ['page'] } as const;
    expect([suggestionLabel(template), suggestionDetail(template)]).toEqual(['@page', 'docs · template docs://{page}']);
  });
});
