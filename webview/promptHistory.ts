/**
 * Walking earlier prompts with Up and Down, as a shell does. Only a box that is empty, or still
 * shows the recalled prompt unchanged, walks: text the user typed is never replaced.
 * `recalled` is the index shown now (undefined: the user's own text). Returns what to show, or
 * undefined when the key should do its ordinary thing (move the caret).
 */
export function recallPrompt(
  history: readonly string[],
  recalled: number | undefined,
  value: string,
  direction: 'up' | 'down',
): { readonly index: number | undefined; readonly value: string } | undefined {
  const shown = recalled === undefined ? '' : history[recalled];
  if (value !== shown || history.length === 0) return undefined;
  if (direction === 'up') {
    const index = recalled === undefined ? history.length - 1 : Math.max(0, recalled - 1);
    return { index, value: history[index]! };
  }
  if (recalled === undefined) return undefined;
  const index = recalled + 1 < history.length ? recalled + 1 : undefined;
  return { index, value: index === undefined ? '' : history[index]! };
}
