import type { ChatSuggestion, ChatSuggestTrigger } from '../src/shared/chatProtocol';

/** What was typed that opens the list: the trigger, the text after it, and where it sits in the box. */
export interface SuggestTrigger {
  readonly trigger: ChatSuggestTrigger;
  readonly query: string;
  readonly start: number;
  readonly end: number;
}

/**
 * The trigger at the caret: `/` when the box starts with it (a command or a prompt, no space
 * typed yet), `@` at the start or after a space (a resource), undefined otherwise.
 */
export function triggerAt(value: string, caret: number): SuggestTrigger | undefined {
  const before = value.slice(0, caret);
  const slash = /^\/(\S*)$/.exec(before);
  if (slash) return { trigger: '/', query: slash[1]!, start: 0, end: caret };
  const at = /(^|\s)@([^\s@]*)$/.exec(before);
  if (at) return { trigger: '@', query: at[2]!, start: caret - at[2]!.length - 1, end: caret };
  return undefined;
}

/** The line an entry shows: `/server.prompt`, `/tools`, `@name`. */
export function suggestionLabel(s: ChatSuggestion): string {
  switch (s.kind) {
    case 'command':
      return `/${s.name}`;
    case 'prompt':
      return `/${s.server}.${s.name}`;
    case 'resource':
    case 'template':
      return `@${s.title ?? s.name}`;
  }
}

/** The line under it: a prompt's title and description, a resource's server, type and description. */
export function suggestionDetail(s: ChatSuggestion): string {
  switch (s.kind) {
    case 'command':
      return s.description;
    case 'prompt':
      return [s.title && s.title !== s.name ? s.title : '', s.description ?? ''].filter(Boolean).join(': ');
    case 'resource':
      return [s.server, s.mimeType, s.description].filter(Boolean).join(' · ');
    case 'template':
      return [s.server, `template ${s.uriTemplate}`, s.description].filter(Boolean).join(' · ');
  }
}
