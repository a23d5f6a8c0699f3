import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redactSecrets, redactString } from './redactSecrets';
import type { PermissionDecider } from './types';

/** Who made a call that came in through `serve` (absent for the harness's own chat). */
export interface AuditClient {
  readonly transport: 'stdio' | 'http';
  /** The MCP session id (HTTP, 2025-era clients). */
  readonly sessionId?: string;
  /** `clientInfo` the client sent (at initialize, or in each request's `_meta`). */
  readonly name?: string;
  readonly version?: string;
  /** Protocol revision the request was made under. */
  readonly protocolVersion?: string;
  /** Peer address (HTTP). */
  readonly remoteAddress?: string;
  /** Who the caller is by the OAuth access token it presented to the gateway (the token's subject). */
  readonly user?: string;
}

/** The start of an MCP call, written before the request goes out. */
export interface AuditStart {
  /** The configured server name (unsanitized). */
  readonly server?: string;
  /** The name (or, for `resources/read`, the URI) asked for. */
  readonly tool: string;
  /** The tool's own name on its server, and the pin of the definition the decision was about. */
  readonly originalName?: string;
  readonly pin?: string;
  /** How long the call waited for a person's answer before it went out (absent when nobody was asked). */
  readonly waitedMs?: number;
  readonly arguments: unknown;
  readonly decider: PermissionDecider;
  /** The MCP method, when it is not `tools/call`. */
  readonly method?: AuditMethod;
  readonly client?: AuditClient;
}

export type AuditMethod = 'tools/call' | 'resources/read' | 'prompts/get' | 'resources/subscribe' | 'resources/unsubscribe';

export type AuditOutcome = 'ok' | 'error' | 'cancelled';

/**
 * One hook run: which hook, on what, how long, and what came of it. `outcome`: `ok` (no
 * decision), `allow`, `deny`, `ask`, `block` (a note, or a refused prompt), `stop`
 * (`continue: false`), `error` (it timed out, crashed or printed malformed output; `continued` when
 * it is marked `"onError": "continue"`), `skipped` (not approved, or the workspace is not trusted).
 */
export interface AuditHookEntry {
  readonly hookEvent: 'PreToolUse' | 'PostToolUse' | 'UserPromptSubmit' | 'SessionStart';
  /** The hook's command line. */
  readonly hook: string;
  /** Where it is configured: `file#jsonPath`. */
  readonly hookId: string;
  readonly source: 'user' | 'workspace' | 'claude' | 'explicit';
  /** The tool, as hooks name it (`mcp__<server>__<tool>`), for tool events. */
  readonly tool?: string;
  readonly server?: string;
  /** The pipeline's id of the call, for tool events. */
  readonly callId?: string;
  readonly conversationId?: string;
  readonly durationMs: number;
  readonly outcome: 'ok' | 'allow' | 'deny' | 'ask' | 'block' | 'stop' | 'error' | 'skipped';
  readonly exitCode?: number | null;
  /** The reason given, or what went wrong (secret-looking values redacted). */
  readonly detail?: string;
  /** What the hook changed: the arguments, the result, or context for the model. */
  readonly changed?: readonly ('input' | 'output' | 'context')[];
  readonly continued?: boolean;
  readonly client?: AuditClient;
}

/** What the loop needs of an audit log. */
export interface IAuditSink {
  /** Records a call that was allowed and is starting; returns the entry's id. */
  start(entry: AuditStart): string;
  /** Completes the entry `id`. */
  end(id: string, result: { readonly outcome: AuditOutcome; readonly outputChars: number; readonly error?: string }): void;
  /** Records a call that was denied (it never reached a server). */
  denied(entry: Omit<AuditStart, 'decider'> & { readonly decider: PermissionDecider; readonly reason?: string }): void;
  /** Records one hook run. */
  hook?(entry: AuditHookEntry): void;
}

/** One JSON line of the audit file. */
export type AuditLine = AuditLineCaller &
  (
    | ({ readonly id: string; readonly event: 'start'; readonly time: string } & AuditStart)
    | { readonly id: string; readonly event: 'end'; readonly time: string; readonly server?: string; readonly tool: string; readonly durationMs: number; readonly outcome: AuditOutcome; readonly outputChars: number; readonly error?: string }
    | ({ readonly id: string; readonly event: 'denied'; readonly time: string; readonly reason?: string } & AuditStart)
    | ({ readonly id: string; readonly event: 'hook'; readonly time: string } & AuditHookEntry)
  );

/** Fields every line of a call that came in through `serve` carries. */
interface AuditLineCaller {
  readonly method?: AuditMethod;
  readonly client?: AuditClient;
}

export interface AuditLogOptions {
  /** Clock (ms since the epoch). */
  now?(): number;
  /** Told when a line could not be written; the call goes on regardless. */
  onError?(error: unknown): void;
}

/**
 * JSON lines, one `start` line when a call begins and one `end` line with the same id when it ends,
 * so a window closed mid-call leaves its entry. Writes are appended in order and never throw into
 * the caller; arguments are stored with secret-looking values redacted.
 */
export class AuditLog implements IAuditSink {
  private readonly _open = new Map<string, { server?: string; tool: string; method?: AuditMethod; client?: AuditClient; startedAt: number }>();
  private _writing: Promise<void> = Promise.resolve();

  constructor(
    readonly filePath: string,
    private readonly _options: AuditLogOptions = {},
  ) {}

  start(entry: AuditStart): string {
    const id = randomUUID();
    const now = this._now();
    this._open.set(id, { server: entry.server, tool: entry.tool, method: entry.method, client: entry.client, startedAt: now });
    this._append({ id, event: 'start', time: new Date(now).toISOString(), ...entry, arguments: redactSecrets(entry.arguments) });
    return id;
  }

  end(id: string, result: { readonly outcome: AuditOutcome; readonly outputChars: number; readonly error?: string }): void {
    const open = this._open.get(id);
    if (!open) return;
    this._open.delete(id);
    const now = this._now();
    this._append({
      id,
      event: 'end',
      time: new Date(now).toISOString(),
      server: open.server,
      tool: open.tool,
      durationMs: now - open.startedAt,
      outcome: result.outcome,
      outputChars: result.outputChars,
      error: result.error === undefined ? undefined : redactString(result.error),
      method: open.method,
      client: open.client,
    });
  }

  denied(entry: Omit<AuditStart, 'decider'> & { readonly decider: PermissionDecider; readonly reason?: string }): void {
    this._append({ id: randomUUID(), event: 'denied', time: new Date(this._now()).toISOString(), ...entry, arguments: redactSecrets(entry.arguments), ...(entry.reason !== undefined ? { reason: redactString(entry.reason) } : {}) });
  }

  hook(entry: AuditHookEntry): void {
    const detail = entry.detail === undefined ? {} : { detail: redactSecrets(entry.detail) as string };
    this._append({ id: randomUUID(), event: 'hook', time: new Date(this._now()).toISOString(), ...entry, ...detail });
  }

  /** Resolves when every line so far is on disk (or failed). */
  flush(): Promise<void> {
    return this._writing;
  }

  private _append(line: AuditLine): void {
    const text = `${JSON.stringify(line)}\n`;
    this._writing = this._writing.then(async () => {
      try {
        await fs.promises.mkdir(path.dirname(this.filePath), { recursive: true });
        await fs.promises.appendFile(this.filePath, text);
      } catch (err) {
        this._options.onError?.(err);
      }
    });
  }

  private _now(): number {
    return this._options.now?.() ?? Date.now();
  }
}
