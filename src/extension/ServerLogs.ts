import * as vscode from 'vscode';
import type { McpLogEntry } from '../core';

/** One log output channel per server, created on first use: stderr, server logs, and at trace level the JSON-RPC traffic. */
export class ServerLogs implements vscode.Disposable {
  private readonly _channels = new Map<string, vscode.LogOutputChannel>();

  channel(server: string): vscode.LogOutputChannel {
    let channel = this._channels.get(server);
    if (!channel) {
      channel = vscode.window.createOutputChannel(`MCP: ${server}`, { log: true });
      this._channels.set(server, channel);
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

  show(server: string): void {
    this.channel(server).show(true);
  }

  dispose(): void {
    for (const channel of this._channels.values()) channel.dispose();
    this._channels.clear();
  }
}
