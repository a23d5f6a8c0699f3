import type { CompleteResult, GetPromptResult, Prompt, ReadResourceResult, RequestMethod, ResultTypeMap } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors';
import { McpCallError } from '../mcp/McpCallError';
import type { McpCallOptions } from '../mcp/McpSession';
import type { McpServerSnapshot } from '../mcp/McpServerSnapshot';
import type { AuditClient, AuditMethod, IAuditSink } from '../permissions/AuditLog';
import type { PermissionDecision } from '../permissions/types';
import { callTimeouts, CALLER_DECIDES, describeDenial, type CallTimeoutDefaults } from './callPolicy';

/** A request to a server other than a tool call, as a policy sees it. */
export type ServerRequestTarget =
  | { readonly kind: 'resource'; readonly server: string; readonly uri: string; readonly name?: string }
  | { readonly kind: 'prompt'; readonly server: string; readonly name: string };

/** Decides whether a resource read or a prompt may be asked of a server (serve's exposure policy, or the caller itself). */
export interface IServerRequestPolicy {
  decide(target: ServerRequestTarget): PermissionDecision;
}

/** Who asks, under which policy. */
export interface ServerRequestOptions {
  readonly policy?: IServerRequestPolicy;
  readonly audit?: IAuditSink;
  readonly client?: AuditClient;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** What the audit log calls the request (default: the URI or prompt name the server knows): a gateway records what its client asked for. */
  readonly auditAs?: string;
}

/** Why a resource read or a prompt was not answered; `code` is the JSON-RPC error a gateway relays. */
export class ServerRequestError extends Error {
  constructor(
    message: string,
    readonly kind: 'unknown' | 'invalid_arguments' | 'denied' | McpCallError['kind'],
    readonly code?: number,
  ) {
    super(message);
    this.name = 'ServerRequestError';
  }
}

/** What requests need of a server's connection. */
export interface IRequestConnection {
  readonly definition: { readonly toolTimeoutMs?: number };
  readonly snapshot: McpServerSnapshot;
  request<M extends RequestMethod>(request: { method: M; params?: Record<string, unknown> }, options: McpCallOptions): Promise<ResultTypeMap[M]>;
}

export interface ServerRequestsOptions {
  connection(server: string): IRequestConnection | undefined;
  defaults(): CallTimeoutDefaults;
  /** Masks what a server's answer may quote of its definition's secrets (errors, audit lines). */
  mask?(text: string): string;
}

const CALLER_POLICY: IServerRequestPolicy = { decide: () => ({ outcome: 'allow', decider: CALLER_DECIDES }) };

/**
 * Resource reads and prompts, through the same steps as tool calls: look up the server (and the
 * prompt) -> validate the arguments -> decide -> audit -> send under the harness's timeout policy.
 */
export class ServerRequests {
  constructor(private readonly _o: ServerRequestsOptions) {}

  /** Reads a resource of `server` by the URI the server knows it by. */
  async readResource(server: string, uri: string, options: ServerRequestOptions = {}): Promise<ReadResourceResult> {
    const connection = this._require(server, 'resource', uri, options, 'resources/read');
    const name = connection.snapshot.resources.find((r) => r.uri === uri)?.name;
    const target: ServerRequestTarget = { kind: 'resource', server, uri, ...(name !== undefined ? { name } : {}) };
    return this._send(connection, target, 'resources/read', uri, { uri }, options);
  }

  /** Gets a prompt of `server`; `args` must give every required argument, as strings. */
  async getPrompt(server: string, name: string, args: Readonly<Record<string, unknown>> = {}, options: ServerRequestOptions = {}): Promise<GetPromptResult> {
    const connection = this._require(server, 'prompt', name, options, 'prompts/get');
    const prompt = connection.snapshot.prompts.find((p) => p.name === name);
    if (!prompt) throw this._unknown('prompt', server, name, options, 'prompts/get', args);
    const problem = checkPromptArguments(prompt, args);
    if (problem) throw new ServerRequestError(`invalid arguments for prompt "${name}" of server "${server}": ${problem}`, 'invalid_arguments', -32602);
    return this._send(connection, { kind: 'prompt', server, name }, 'prompts/get', name, { name, arguments: args }, options);
  }

  /**
   * Suggestions for an argument being typed: a prompt's (`{ type: 'ref/prompt', name }`) or a
   * resource template variable's (`{ type: 'ref/resource', uri: template }`), with the values of
   * the arguments already filled in as context. A server without completions answers no values.
   */
  async complete(
    server: string,
    ref: { readonly type: 'ref/prompt'; readonly name: string } | { readonly type: 'ref/resource'; readonly uri: string },
    argument: { readonly name: string; readonly value: string },
    context: Readonly<Record<string, string>> = {},
    options: ServerRequestOptions = {},
  ): Promise<CompleteResult['completion']> {
    const connection = this._o.connection(server);
    if (!connection) throw new ServerRequestError(`no server named "${server}"`, 'unknown', -32602);
    if (!connection.snapshot.capabilities?.completions) return { values: [] };
    const target: ServerRequestTarget = ref.type === 'ref/prompt' ? { kind: 'prompt', server, name: ref.name } : { kind: 'resource', server, uri: ref.uri };
    const decision = (options.policy ?? CALLER_POLICY).decide(target);
    if (decision.outcome === 'deny') throw new ServerRequestError(`unknown ${target.kind} "${ref.type === 'ref/prompt' ? ref.name : ref.uri}"`, 'denied', -32602);
    try {
      const params = { ref, argument, ...(Object.keys(context).length ? { context: { arguments: context } } : {}) };
      const signal = options.signal;
      const result = await connection.request({ method: 'completion/complete', params }, { ...(signal ? { signal } : {}), ...callTimeouts(connection.definition, this._o.defaults(), options.timeoutMs) });
      return result.completion;
    } catch (err) {
      if (err instanceof McpCallError) throw new ServerRequestError(`${server}: ${this._mask(err.message)}`, err.kind, err.code);
      throw err;
    }
  }

  /** Sends `resources/subscribe` or `resources/unsubscribe` for a resource the policy allows. */
  async subscription(server: string, uri: string, method: 'resources/subscribe' | 'resources/unsubscribe', options: ServerRequestOptions = {}): Promise<void> {
    const connection = this._require(server, 'resource', uri, options, method);
    if (method === 'resources/subscribe' && !connection.snapshot.capabilities?.resources?.subscribe) {
      throw new ServerRequestError(`${server} does not offer resource subscriptions`, 'invalid_arguments', -32602);
    }
    const name = connection.snapshot.resources.find((r) => r.uri === uri)?.name;
    await this._send(connection, { kind: 'resource', server, uri, ...(name !== undefined ? { name } : {}) }, method, uri, { uri }, options);
  }

  private _require(server: string, kind: 'resource' | 'prompt', name: string, options: ServerRequestOptions, method: AuditMethod): IRequestConnection {
    const connection = this._o.connection(server);
    if (!connection) throw this._unknown(kind, server, name, options, method, {});
    return connection;
  }

  private _unknown(kind: 'resource' | 'prompt', server: string, name: string, options: ServerRequestOptions, method: AuditMethod, args: unknown): ServerRequestError {
    options.audit?.denied({ client: options.client, method, tool: options.auditAs ?? name, server, arguments: args, decider: CALLER_DECIDES, reason: 'not offered' });
    return new ServerRequestError(`unknown ${kind} "${name}"`, 'unknown', -32602);
  }

  private async _send<M extends RequestMethod>(
    connection: IRequestConnection,
    target: ServerRequestTarget,
    method: M & AuditMethod,
    name: string,
    params: Record<string, unknown>,
    options: ServerRequestOptions,
  ): Promise<ResultTypeMap[M]> {
    const decision = (options.policy ?? CALLER_POLICY).decide(target);
    const audit = { client: options.client, method, tool: options.auditAs ?? name, server: target.server, arguments: target.kind === 'prompt' ? (params.arguments ?? {}) : params };
    if (decision.outcome === 'deny') {
      options.audit?.denied({ ...audit, decider: decision.decider, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) });
      // A client is never told more than "unknown" about what it may not see.
      throw new ServerRequestError(options.policy ? `unknown ${target.kind} "${name}"` : describeDenial(decision), 'denied', -32602);
    }
    const id = options.audit?.start({ ...audit, decider: decision.decider });
    const signal = options.signal;
    try {
      const result = await connection.request({ method, params }, { ...(signal ? { signal } : {}), ...callTimeouts(connection.definition, this._o.defaults(), options.timeoutMs) });
      if (id !== undefined) options.audit?.end(id, { outcome: 'ok', outputChars: JSON.stringify(result).length });
      return result;
    } catch (err) {
      const message = this._mask(errorMessage(err));
      if (id !== undefined) options.audit?.end(id, { outcome: signal?.aborted ? 'cancelled' : 'error', outputChars: 0, error: message });
      if (err instanceof McpCallError) throw new ServerRequestError(`${target.server}: ${message}`, err.kind, err.code);
      throw err;
    }
  }

  private _mask(text: string): string {
    return this._o.mask?.(text) ?? text;
  }
}

/** Why `args` do not fit the prompt's declared arguments, or undefined. */
export function checkPromptArguments(prompt: Pick<Prompt, 'arguments'>, args: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'arguments must be an object';
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') return `argument "${key}" must be a string`;
  }
  const missing = (prompt.arguments ?? []).filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
  return missing.length ? `missing required argument${missing.length === 1 ? '' : 's'} ${missing.map((m) => `"${m}"`).join(', ')}` : undefined;
}
