import { UriTemplate, type CompleteResult, type GetPromptResult, type Prompt, type ReadResourceResult, type Resource, type ResourceTemplateType, type ServerCapabilities } from '@modelcontextprotocol/client';
import type { Event } from '../base/event';
import type { ResourceUpdate } from '../calls/ResourceSubscriptions';
import type { ChatCompletionRef, ChatSuggestion, ChatSuggestTrigger } from '../../shared/chatProtocol';
import type { ChatAttachment } from './ChatContext';
import { lastSegment, promptContent, resourceAttachment } from './resourceAttachment';

/** What the chat needs to know of a server (the harness's snapshot has it). */
export interface ChatServerView {
  readonly name: string;
  readonly state: { readonly kind: string };
  readonly capabilities?: ServerCapabilities;
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplateType[];
}

/** The servers' prompts, resources and completions, as the harness (`McpHarness`) offers them. */
export interface IChatServerItems {
  snapshots(): readonly ChatServerView[];
  getPrompt(server: string, name: string, args?: Readonly<Record<string, unknown>>, options?: { signal?: AbortSignal }): Promise<GetPromptResult>;
  readResource(server: string, uri: string, options?: { signal?: AbortSignal }): Promise<ReadResourceResult>;
  complete(
    server: string,
    ref: { readonly type: 'ref/prompt'; readonly name: string } | { readonly type: 'ref/resource'; readonly uri: string },
    argument: { readonly name: string; readonly value: string },
    context?: Readonly<Record<string, string>>,
  ): Promise<CompleteResult['completion']>;
  subscribeResource(server: string, uri: string, holder: object): Promise<void>;
  unsubscribeResource(server: string, uri: string, holder: object): Promise<void>;
  readonly onDidUpdateResource: Event<ResourceUpdate>;
}

/** The chat's own commands, offered with the prompts after `/`. */
export const BUILTIN_COMMANDS: readonly Extract<ChatSuggestion, { kind: 'command' }>[] = [
  { kind: 'command', name: 'tools', description: 'List the enabled tools (optionally filtered)', insert: '/tools ' },
  { kind: 'command', name: 'call', description: 'Run one tool: /call TOOL {json}', insert: '/call ' },
  { kind: 'command', name: 'mcp', description: 'Show each server and its state', insert: '/mcp' },
  { kind: 'command', name: 'help', description: 'The commands that work without a model', insert: '/help' },
];

/** Most suggestions one list shows. */
export const MAX_SUGGESTIONS = 50;
/** Most completion values passed on (the spec's own cap). */
export const MAX_COMPLETIONS = 100;

/**
 * The running servers' prompts (as `/<server>.<prompt>`), resources and resource templates (after
 * `@`), ranked against what was typed; the suggestions for an argument; and a prompt or resource
 * read into what the person sends.
 */
export class ChatServerItems {
  constructor(private readonly _items: IChatServerItems) {}

  /** Entries matching `query`: those it starts (in name or title) before those it is inside. */
  suggest(trigger: ChatSuggestTrigger, query: string): ChatSuggestion[] {
    const q = query.trim().toLowerCase();
    const running = this._items.snapshots().filter((s) => s.state.kind === 'running' || s.state.kind === 'reconnecting');
    const candidates: { item: ChatSuggestion; keys: string[] }[] = [];
    if (trigger === '/') {
      for (const c of BUILTIN_COMMANDS) candidates.push({ item: c, keys: [c.name] });
      for (const s of running) {
        for (const p of s.prompts) {
          const args = (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true, ...(a.description ? { description: a.description } : {}) }));
          candidates.push({ item: { kind: 'prompt', server: s.name, name: p.name, ...text('title', p.title), ...text('description', p.description), arguments: args }, keys: [`${s.name}.${p.name}`, p.name, p.title ?? ''] });
        }
      }
    } else {
      for (const s of running) {
        for (const r of s.resources) {
          candidates.push({ item: { kind: 'resource', server: s.name, uri: r.uri, name: r.name, ...text('title', r.title), ...text('description', r.description), ...text('mimeType', r.mimeType) }, keys: [r.name, r.title ?? '', r.uri] });
        }
        for (const t of s.resourceTemplates) {
          const variables = templateVariables(t.uriTemplate);
          if (!variables) continue;
          candidates.push({
            item: { kind: 'template', server: s.name, uriTemplate: t.uriTemplate, name: t.name, ...text('title', t.title), ...text('description', t.description), ...text('mimeType', t.mimeType), variables },
            keys: [t.name, t.title ?? '', t.uriTemplate],
          });
        }
      }
    }
    return rank(candidates, q).slice(0, MAX_SUGGESTIONS);
  }

  /** Suggestions for an argument being typed; none when the server offers no completions. */
  async complete(server: string, ref: ChatCompletionRef, argument: { name: string; value: string }, context: Readonly<Record<string, string>> = {}): Promise<{ values: string[]; hasMore?: boolean; total?: number }> {
    const target = ref.type === 'ref/prompt' ? { type: 'ref/prompt' as const, name: ref.name } : { type: 'ref/resource' as const, uri: ref.uri };
    const completion = await this._items.complete(server, target, argument, context);
    const values = (Array.isArray(completion?.values) ? completion.values : []).filter((v): v is string => typeof v === 'string').slice(0, MAX_COMPLETIONS);
    return { values, ...(completion?.hasMore ? { hasMore: true } : {}), ...(typeof completion?.total === 'number' && completion.total >= 0 ? { total: Math.floor(completion.total) } : {}) };
  }

  /** A prompt's messages as the person's next message, and what it embeds as attachments. */
  async prompt(server: string, name: string, args: Readonly<Record<string, string>>): Promise<{ text: string; attachments: ChatAttachment[] }> {
    // An optional argument left empty is not sent: the server applies its own default.
    const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== ''));
    return promptContent(server, await this._items.getPrompt(server, name, given));
  }

  /** A resource (by URI, or from a template and its variables) read into an attachment. */
  async resource(server: string, target: { uri?: string; template?: { uriTemplate: string; variables: Readonly<Record<string, string>> }; name?: string }): Promise<ChatAttachment> {
    const uri = target.uri ?? (target.template ? expandTemplate(target.template.uriTemplate, target.template.variables) : undefined);
    if (uri === undefined) throw new Error('name a resource by its URI or by a template and its variables');
    const snapshot = this._items.snapshots().find((s) => s.name === server);
    const listed = snapshot?.resources.find((r) => r.uri === uri);
    const template = target.template && snapshot?.resourceTemplates.find((t) => t.uriTemplate === target.template!.uriTemplate);
    // A template's resource is named after the template and the values it was given.
    const fromTemplate = template && `${template.title ?? template.name} (${Object.values(target.template!.variables).join(', ')})`;
    const name = listed?.title ?? listed?.name ?? target.name ?? fromTemplate ?? lastSegment(uri);
    return resourceAttachment(server, uri, name, await this._items.readResource(server, uri));
  }
}

/** A template's variables, or undefined when it is not a template the SDK can expand. */
export function templateVariables(uriTemplate: string): string[] | undefined {
  try {
    return new UriTemplate(uriTemplate).variableNames;
  } catch {
    return undefined;
  }
}

/** The URI a template gives with `variables` (RFC 6570, as the SDK expands it). */
export function expandTemplate(uriTemplate: string, variables: Readonly<Record<string, string>>): string {
  const missing = templateVariables(uriTemplate)?.filter((v) => !variables[v]);
  if (missing === undefined) throw new Error(`"${uriTemplate}" is not a URI template`);
  if (missing.length) throw new Error(`fill in ${missing.map((m) => `"${m}"`).join(', ')}`);
  return new UriTemplate(uriTemplate).expand({ ...variables });
}

function text<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value ? { [key]: value } : {}) as { [P in K]?: string };
}

/** Starts-with matches first (in the order found), then contains; no query keeps everything. */
function rank<T>(candidates: readonly { item: T; keys: string[] }[], q: string): T[] {
  if (!q) return candidates.map((c) => c.item);
  const starts: T[] = [];
  const contains: T[] = [];
  for (const c of candidates) {
    const keys = c.keys.map((k) => k.toLowerCase());
    if (keys.some((k) => k.startsWith(q) || k.split(/[.\-_ /]/).some((part) => part.startsWith(q)))) starts.push(c.item);
    else if (keys.some((k) => k.includes(q))) contains.push(c.item);
  }
  return [...starts, ...contains];
}
