import { describe, expect, it } from 'vitest';
import { titleFor } from '../../../src/core/chat';

describe('titleFor', () => {
  it('takes the first line that says something, capitalised, without Markdown marks', () => {
    expect(titleFor('remember that the build uses esbuild')).toBe('Remember that the build uses esbuild');
    expect(titleFor('\n\n  **fix** the `build`\nmore detail')).toBe('Fix the build');
    expect(titleFor('/tools memory')).toBe('/tools memory');
    expect(titleFor('   ')).toBe('New chat');
  });

  it('cuts a long first line at a word', () => {
    const title = titleFor('please look at every file in the src folder and tell me which ones import vscode directly');
    expect(title).toBe('Please look at every file in the src folder and…');
    expect(title.length).toBeLessThanOrEqual(50);
    expect(titleFor('x'.repeat(80))).toBe(`X${'x'.repeat(48)}…`);
  });
});
