import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ICallConnection } from '../calls/CallPipeline';
import { McpCallError } from '../mcp/McpCallError';

type McpCallOptions = Parameters<ICallConnection['callTool']>[2];

/** The JSON-RPC code of 2025-11-25's `UrlElicitationRequiredError`: the call needs pages visited first. */
export const URL_ELICITATION_REQUIRED = -32042;

/** Who takes the person to the pages (the harness's `ServerAsks`). */
export interface IRequiredPages {
  visitRequiredPages(server: string, pages: readonly { readonly url: string; readonly message: string }[], signal: AbortSignal): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** The pages a -32042 error asks for, or undefined when `err` is not one (or names none the host can show). */
export function requiredPages(err: unknown): { url: string; message: string }[] | undefined {
  if (!(err instanceof McpCallError) || err.code !== URL_ELICITATION_REQUIRED) return undefined;
  const list = (err.data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(list)) return undefined;
  const pages = list
    .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && (e as { mode?: unknown }).mode === 'url' && typeof (e as { url?: unknown }).url === 'string')
    .map((e) => ({ url: e.url as string, message: typeof e.message === 'string' ? e.message : 'The server asks you to open this page.' }));
  return pages.length ? pages : undefined;
}

/**
 * A server's connection whose tool calls answer "URL elicitation required" (2025-11-25, error
 * -32042): the person is shown each page (opened only once they confirm) and, when they say they
 * finished, the call is made once more. Declined or cancelled, the call ends with that reason for
 * the model. 2026-07-28 servers ask for pages through `input_required` results instead, which the
 * elicitation handler answers.
 */
export class UrlElicitationRetry implements ICallConnection {
  constructor(
    private readonly _connection: ICallConnection,
    private readonly _server: string,
    private readonly _pages: IRequiredPages,
  ) {}

  get definition(): ICallConnection['definition'] {
    return this._connection.definition;
  }

  get state(): ICallConnection['state'] {
    return this._connection.state;
  }

  whenSettled(): Promise<void> {
    return this._connection.whenSettled();
  }

  describeUnavailable(): string {
    return this._connection.describeUnavailable();
  }

  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    try {
      return await this._connection.callTool(name, args, options);
    } catch (err) {
      const pages = requiredPages(err);
      if (!pages) throw err;
      const visited = await this._pages.visitRequiredPages(this._server, pages, options.signal ?? new AbortController().signal);
      if (options.signal?.aborted) throw new McpCallError('cancelled', 'the call was cancelled');
      if (!visited.ok) throw new McpCallError('protocol', visited.reason, URL_ELICITATION_REQUIRED);
      try {
        return await this._connection.callTool(name, args, options);
      } catch (again) {
        if (requiredPages(again)) throw new McpCallError('protocol', `the server still asks for a page after the user finished there (${(again as Error).message}); the call was retried once and is not tried again`, URL_ELICITATION_REQUIRED);
        throw again;
      }
    }
  }
}
