import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redactSecrets } from '../permissions/redactSecrets';

/** Who is on the other end of a serve session. */
export interface ServeClientIdentity {
  readonly transport: 'stdio' | 'http';
  /** The MCP session id (HTTP). */
  readonly sessionId?: string;
  /** `clientInfo` the client sent at initialize. */
  readonly name?: string;
  readonly version?: string;
  /** Peer address (HTTP). */
  readonly remoteAddress?: string;
}

export type ServeAuditMethod = 'tools/call' | 'resources/read' | 'prompts/get';
export type ServeAuditOutcome = 'ok' | 'error' | 'cancelled';

/** The start of a call a client made through the server. */
export interface ServeAuditStart {
  readonly client: ServeClientIdentity;
  readonly method: ServeAuditMethod;
  /** The name (or URI) the client asked for. */
  readonly tool: string;
  /** The configured server it went to; absent for built-in tools. */
  readonly server?: string;
  readonly arguments: unknown;
}

/** Where `serve` records every call: a start when it begins and an end with the same id. */
export interface IServeAuditSink {
  start(entry: ServeAuditStart): string;
  end(id: string, result: { readonly outcome: ServeAuditOutcome; readonly outputChars: number; readonly error?: string }): void;
  /** A call refused before anything ran (unknown or denied name). */
  denied(entry: ServeAuditStart & { readonly reason: string }): void;
}

/**
 * An {@link IServeAuditSink} that appends JSON lines to a file, in order, never throwing into a
 * call. The lines have the fields of the chat's audit log (`AuditLine`: id, event, time, server,
 * tool, arguments with secrets redacted, durationMs, outcome, ...) plus the client's identity and
 * the MCP method.
 */
export class ServeAuditLog implements IServeAuditSink {
  private readonly _open = new Map<string, { start: ServeAuditStart; at: number }>();
  private _writing: Promise<void> = Promise.resolve();

  constructor(
    readonly filePath: string,
    private readonly _onError: (err: unknown) => void = () => undefined,
  ) {}

  start(entry: ServeAuditStart): string {
    const id = randomUUID();
    this._open.set(id, { start: entry, at: Date.now() });
    this._append({ id, event: 'start', time: new Date().toISOString(), ...entry, arguments: redactSecrets(entry.arguments) });
    return id;
  }

  end(id: string, result: { readonly outcome: ServeAuditOutcome; readonly outputChars: number; readonly error?: string }): void {
    const open = this._open.get(id);
    if (!open) return;
    this._open.delete(id);
    const { client, method, tool, server } = open.start;
    this._append({ id, event: 'end', time: new Date().toISOString(), client, method, tool, server, durationMs: Date.now() - open.at, ...result });
  }

  denied(entry: ServeAuditStart & { readonly reason: string }): void {
    this._append({ id: randomUUID(), event: 'denied', time: new Date().toISOString(), ...entry, arguments: redactSecrets(entry.arguments) });
  }

  /** Resolves when every line so far is written (or failed). */
  flush(): Promise<void> {
    return this._writing;
  }

  private _append(line: Record<string, unknown>): void {
    const text = JSON.stringify(line) + '\n';
    this._writing = this._writing.then(async () => {
      try {
        await fs.promises.mkdir(path.dirname(this.filePath), { recursive: true });
        await fs.promises.appendFile(this.filePath, text, 'utf8');
      } catch (err) {
        this._onError(err);
      }
    });
  }
}
