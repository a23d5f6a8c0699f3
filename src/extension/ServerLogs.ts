import * as vscode from 'vscode';
import { Disposable, type McpLogEntry } from '../core';

/** One log output channel per server, created on first use: stderr, server logs, and at trace level the JSON-RPC traffic. */
export class ServerLogs extends Disposable {
  private readonly _channels = new Map<string, vscode.LogOutputChannel>();

  /** `onDidChangeLevel` hears of a user setting a server's channel to another level. */
  constructor(private readonly _onDidChangeLevel: (server: string) => void = () => undefined) {
    super();
  }

  channel(server: string): vscode.LogOutputChannel {
    let channel = this._channels.get(server);
    if (!channel) {
      channel = this._register(vscode.window.createOutputChannel(`MCP: ${server}`, { log: true }));
      this._channels.set(server, channel);
      this._register(channel.onDidChangeLogLevel(() => this._onDidChangeLevel(server)));
    }
    return channel;
  }

  append(entry: McpLogEntry): void {
    const channel = this.channel(entry.server);
    const text = entry.source === 'rpc' ? entry.message : `[${entry.source}] ${entry.message}`;
    // McpLogEntry levels are the LogOutputChannel method names.
    channel[entry.level](text);
  }

  /** Whether the user set this server's log to Trace (then JSON-RPC messages are logged). */
  isTracing(server: string): boolean {
    return this._channels.get(server)?.logLevel === vscode.LogLevel.Trace;
  }

  /** The MCP logging level matching the server's channel (Off sends only emergencies). */
  mcpLevel(server: string): 'debug' | 'info' | 'warning' | 'error' | 'emergency' {
    switch (this.channel(server).logLevel) {
      case vscode.LogLevel.Trace:
      case vscode.LogLevel.Debug:
        return 'debug';
      case vscode.LogLevel.Info:
        return 'info';
      case vscode.LogLevel.Warning:
        return 'warning';
      case vscode.LogLevel.Error:
        return 'error';
      default:
        return 'emergency';
    }
  }

  show(server: string): void {
    this.channel(server).show(true);
  }

  override dispose(): void {
    this._channels.clear();
    super.dispose();
  }
}
