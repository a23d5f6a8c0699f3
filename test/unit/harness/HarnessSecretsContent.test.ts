import { describe, expect, it } from 'vitest';
import { HarnessSecrets } from '../../../src/core/HarnessSecrets';
import type { HarnessCallResult } from '../../../src/core/HarnessTypes';

describe('HarnessSecrets, a failed call', () => {
  it('masks the text parts of a failure and hands its other parts on untouched', () => {
    const s = new HarnessSecrets();
    s.set('a', ['alpha-secret-1']);
    const image = { type: 'image', data: 'aGk=', mimeType: 'image/png' };
    const failed = { isError: true, text: 'refused alpha-secret-1', content: [{ type: 'text', text: 'refused alpha-secret-1' }, image] } as unknown as HarnessCallResult;
    const masked = s.callResult(failed);
    expect(masked.text).toBe('refused ••••');
    expect(masked.content[0]).toStrictEqual({ type: 'text', text: 'refused ••••' });
    expect(masked.content[1]).toStrictEqual(image);
  });
});
