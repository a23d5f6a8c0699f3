/**
 * The part of the chat's message map for what servers offer besides tools: prompts as slash
 * commands, resources and resource templates as context, and the suggestions (`completion/complete`)
 * for an argument being typed. The host answers from the running servers; the panel keeps nothing.
 */
import { array, bool, boundedStr, int, none, object, oneOf, optional, record, str, union, type Infer } from './shape';

/** What opens the suggestion list in the message box: `/` at its start, `@` after a space. */
export const SUGGEST_TRIGGERS = ['/', '@'] as const;
export type ChatSuggestTrigger = (typeof SUGGEST_TRIGGERS)[number];

const promptArgument = object({ name: str, description: optional(str), required: bool });
export type ChatPromptArgument = Infer<typeof promptArgument>;

/** One entry of the suggestion list. */
export const chatSuggestion = union('kind', {
  /** A built-in command (`/tools`); `insert` is what choosing it puts in the box. */
  command: object({ name: str, description: str, insert: str }),
  /** `/<server>.<name>`: a server's prompt. */
  prompt: object({ server: str, name: str, title: optional(str), description: optional(str), arguments: array(promptArgument) }),
  /** `@<name>`: a server's resource. */
  resource: object({ server: str, uri: str, name: str, title: optional(str), description: optional(str), mimeType: optional(str) }),
  /** A resource template: its variables are filled in (with suggestions) before it is attached. */
  template: object({ server: str, uriTemplate: str, name: str, title: optional(str), description: optional(str), mimeType: optional(str), variables: array(str) }),
});
export type ChatSuggestion = Infer<typeof chatSuggestion>;

/** What an argument's suggestions are for: a prompt's argument or a resource template's variable. */
export const completionRef = union('type', {
  'ref/prompt': object({ name: str }),
  'ref/resource': object({ uri: str }),
});
export type ChatCompletionRef = Infer<typeof completionRef>;

const value = boundedStr(10_000);

/** A chip above the message box: what goes with the next message. */
export const attachmentChip = object({
  id: str,
  label: str,
  /** Size, type and where it is from, for the chip's tooltip. */
  detail: optional(str),
  /** The server said the resource changed since it was attached; the chip holds the new content. */
  updated: optional(bool),
});
export type ChatAttachmentChip = Infer<typeof attachmentChip>;

/** A `resource_link` a tool returned, as its card offers it (open it, or attach it). */
export const resourceLinkView = object({ uri: str, name: str, title: optional(str), description: optional(str), mimeType: optional(str) });
export type ChatResourceLink = Infer<typeof resourceLinkView>;

/** The requests of this part of the map: what the panel sends, and what the host answers. */
export const CONTEXT_REQUESTS = {
  /** The entries matching what follows the trigger (best first, at most a few dozen). */
  suggest: { params: object({ trigger: oneOf(SUGGEST_TRIGGERS), query: boundedStr(1000) }), answer: object({ items: array(chatSuggestion) }) },
  /** Suggestions for an argument being typed, given the arguments already filled in. */
  complete: {
    params: object({ server: str, ref: completionRef, argument: object({ name: str, value }), context: optional(record(value)) }),
    answer: object({ values: array(str), hasMore: optional(bool), total: optional(int(0)) }),
  },
  /**
   * Gets a prompt with its arguments: the text of its messages goes back for the message box (the
   * person reads and edits it before sending); resources it embeds become chips.
   */
  usePrompt: { params: object({ server: str, name: str, arguments: record(value) }), answer: object({ text: str }) },
  /** Attaches a resource, or the one a template gives with these variables, as a chip. */
  attachResource: {
    params: object({ server: str, uri: optional(str), template: optional(object({ uriTemplate: str, variables: record(value) })), /** What the chip says when the server does not list the resource (a link's name). */ name: optional(str) }),
    answer: none,
  },
  /** Opens a resource in the editor (a tool card's resource link). */
  openResource: { params: object({ server: str, uri: str, name: optional(str) }), answer: none },
} as const;
