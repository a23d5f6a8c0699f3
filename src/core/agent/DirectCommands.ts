import type { HarnessTool } from '../tools/types';
import type { ModelToolCalls } from './ModelToolCalls';
import type { AgentEvent } from './types';

/** A chat line the host runs itself, without a model. */
export type DirectCommand =
  | { readonly kind: 'tools'; readonly filter?: string }
  | { readonly kind: 'call'; readonly tool: string; readonly argumentsText: string }
  | { readonly kind: 'mcp' }
  | { readonly kind: 'help' }
  | { readonly kind: 'invalid'; readonly message: string };

export const DIRECT_COMMANDS_HELP = [
  'Commands that work without a model:',
  '- `/tools [filter]` lists the enabled tools',
  '- `/call TOOL {json}` runs one tool (with your approval), e.g. `/call mcp__memory__read_graph {}`',
  '- `/mcp` shows each server and its state',
].join('\n');

/** Parses `/tools`, `/call TOOL {json}`, `/mcp`, `/help`; `undefined` when `text` is not a command. */
export function parseDirectCommand(text: string): DirectCommand | undefined {
  const trimmed = text.trim();
  const match = /^\/([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  const rest = (match[2] ?? '').trim();
  switch (name) {
    case 'tools':
      return rest ? { kind: 'tools', filter: rest } : { kind: 'tools' };
    case 'mcp':
      return { kind: 'mcp' };
    case 'help':
      return { kind: 'help' };
    case 'call': {
      const call = /^(\S+)(?:\s+([\s\S]*))?$/.exec(rest);
      if (!call) return { kind: 'invalid', message: 'Usage: `/call TOOL {json}`, e.g. `/call mcp__fx__echo {"text":"hi"}`.' };
      return { kind: 'call', tool: call[1]!, argumentsText: (call[2] ?? '').trim() };
    }
    default:
      return { kind: 'invalid', message: `Unknown command "/${match[1]}".\n\n${DIRECT_COMMANDS_HELP}` };
  }
}

/** What `/mcp` shows of a server (the harness's `HarnessServer` has it). */
export interface DirectCommandServer {
  readonly name: string;
  readonly state: string;
  readonly error?: string;
  readonly tools: readonly unknown[];
}

export interface DirectCommandsOptions {
  tools(): readonly HarnessTool[];
  servers(): readonly DirectCommandServer[];
  /** The same calls the agent makes: `/call` goes through the same pipeline, gate and audit log. */
  readonly calls: ModelToolCalls;
}

/** Runs direct commands for a chat with no model (or when the user types one). Replies are Markdown. */
export class DirectCommands {
  constructor(private readonly _options: DirectCommandsOptions) {}

  /** Runs `text` when it is a command; `undefined` when it is not one. */
  async run(text: string, options: { readonly signal: AbortSignal; onEvent?(event: AgentEvent): void }): Promise<string | undefined> {
    const command = parseDirectCommand(text);
    if (!command) return undefined;
    switch (command.kind) {
      case 'help':
        return DIRECT_COMMANDS_HELP;
      case 'invalid':
        return command.message;
      case 'tools':
        return this._listTools(command.filter);
      case 'mcp':
        return this._listServers();
      case 'call': {
        const { outcome } = await this._options.calls.run({ id: 'direct', name: command.tool, arguments: command.argumentsText }, options.signal, (e) => options.onEvent?.(e));
        return outcome.text;
      }
    }
  }

  private _listTools(filter: string | undefined): string {
    const needle = filter?.toLowerCase();
    const tools = this._options.tools().filter((t) => !needle || t.name.toLowerCase().includes(needle) || t.description.toLowerCase().includes(needle));
    if (tools.length === 0) return filter ? `No enabled tool matches "${filter}".` : 'No tools are enabled.';
    return [`${tools.length} tool${tools.length === 1 ? '' : 's'}:`, ...tools.map((t) => `- \`${t.name}\`${t.description ? `: ${firstLine(t.description)}` : ''}`)].join('\n');
  }

  private _listServers(): string {
    const servers = this._options.servers();
    if (servers.length === 0) return 'No MCP servers are configured.';
    // What the model can use: the server's enabled tools, and how many it has when some are unchecked.
    const enabled = new Map<string, number>();
    for (const t of this._options.tools()) if (t.server !== undefined) enabled.set(t.server, (enabled.get(t.server) ?? 0) + 1);
    return servers
      .map((s) => {
        const on = enabled.get(s.name) ?? 0;
        const count = on === s.tools.length ? `${on} tool${on === 1 ? '' : 's'}` : `${on} of ${s.tools.length} tools enabled`;
        return `- **${s.name}**: ${s.state}${s.error ? ` (${s.error})` : ''}, ${count}`;
      })
      .join('\n');
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
