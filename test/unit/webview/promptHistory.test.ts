import { describe, expect, it } from 'vitest';
import { recallPrompt } from '../../../webview/promptHistory';

const H = ['first', 'second', 'third'];

describe('recallPrompt', () => {
  it('walks back from an empty box to the oldest prompt, and stays there', () => {
    expect(recallPrompt(H, undefined, '', 'up')).toEqual({ index: 2, value: 'third' });
    expect(recallPrompt(H, 2, 'third', 'up')).toEqual({ index: 1, value: 'second' });
    expect(recallPrompt(H, 0, 'first', 'up')).toEqual({ index: 0, value: 'first' });
  });

  it('walks forward to an empty box', () => {
    expect(recallPrompt(H, 1, 'second', 'down')).toEqual({ index: 2, value: 'third' });
    expect(recallPrompt(H, 2, 'third', 'down')).toEqual({ index: undefined, value: '' });
    expect(recallPrompt(H, undefined, '', 'down')).toBeUndefined();
  });

  it('never replaces text the user typed or changed', () => {
    expect(recallPrompt(H, undefined, 'draft', 'up')).toBeUndefined();
    expect(recallPrompt(H, 1, 'second, edited', 'up')).toBeUndefined();
    expect(recallPrompt([], undefined, '', 'up')).toBeUndefined();
  });
});
